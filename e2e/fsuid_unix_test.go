//go:build unix

package e2e

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
)

// runCLIWithoutFileAccessRights is runBin with the file-access rights of an
// ordinary user, so that a directory's permission bits hold as they do for
// users: root (as the tests run in CI) reads every directory. Run by root,
// the process runs as nobody (user and group 65534, no other groups); run by
// anyone else, as that user.
func runCLIWithoutFileAccessRights(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := cliCommand(context.Background(), strings.NewReader(""), args...)
	if os.Geteuid() == 0 {
		const nobody = 65534
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	return runCmd(t, cmd)
}
