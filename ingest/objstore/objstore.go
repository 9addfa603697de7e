// Package objstore reads ingest's inputs from object storage through the S3
// API (AWS S3, and MinIO, Ceph, Cloudflare R2 or Google Cloud Storage's
// interoperability endpoint): it lists the objects an s3:// glob matches
// and streams one object's bytes, never copying it whole to disk.
//
// An input is s3://BUCKET/KEYGLOB:
//
//	s3://logs/gateway/2026-11-*/access.log.gz
//	s3://logs/client/          (the objects directly "in" client/)
//
// KEYGLOB follows the rules of local globs (path.Match): '*' and '?' match
// within one '/'-separated segment, '[...]' is a class, '\' escapes. The
// objects are listed under the key's literal prefix (up to its first
// wildcard), then matched. A key without wildcards names one object, or,
// when there is none of that name, the objects directly under KEY/ (a
// directory, as a local directory input stands for the files in it).
//
// Credentials and region come from the AWS SDK's default chain: the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_PROFILE, AWS_REGION), the shared files (~/.aws/config,
// ~/.aws/credentials), SSO, web identity, the container or EC2 instance
// role. An endpoint other than AWS's is set with AWS_ENDPOINT_URL_S3 (or
// AWS_ENDPOINT_URL, or endpoint_url in the profile); such an endpoint is
// addressed path-style (http://host:9000/BUCKET/KEY), as MinIO and Ceph
// need by default. Without a region, us-east-1 is used.
//
// A URL never carries credentials (s3://KEY:SECRET@bucket/ is refused) and
// errors name the s3:// URL only: never the endpoint's request URL, its
// query string or a credential.
package objstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
)

// Scheme begins every object URL.
const Scheme = "s3://"

// IsURL reports whether an input names objects (s3://...) rather than
// local files.
func IsURL(s string) bool { return strings.HasPrefix(s, Scheme) }

// Object is one object listed.
type Object struct {
	Bucket, Key string
	Size        int64
	// ETag is the object's entity tag as listed, quotes included: with
	// the URL and the size, the identity of this version of the object.
	ETag string
}

// URL is s3://BUCKET/KEY, the object's name in the manifest, the rejects
// and errors.
func (o Object) URL() string { return Scheme + o.Bucket + "/" + o.Key }

// Parse splits s3://BUCKET/KEYGLOB. It refuses a URL without a bucket,
// one whose bucket is a pattern, and one with credentials or a port before
// the bucket (without quoting it, as it may hold a secret).
func Parse(u string) (bucket, key string, err error) {
	rest, ok := strings.CutPrefix(u, Scheme)
	if !ok {
		return "", "", fmt.Errorf("%q is not an s3:// URL", u)
	}
	bucket, key, _ = strings.Cut(rest, "/")
	switch {
	case strings.ContainsAny(bucket, "@:"):
		return "", "", errors.New("an s3:// URL holds no credentials or endpoint (s3://USER:SECRET@… or s3://HOST:PORT/…): give credentials through AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or ~/.aws/credentials, and the endpoint through AWS_ENDPOINT_URL_S3")
	case bucket == "":
		return "", "", fmt.Errorf("%s names no bucket: want s3://BUCKET/KEYGLOB", u)
	case strings.ContainsAny(bucket, `*?[\`):
		return "", "", fmt.Errorf("%s: the bucket name cannot be a pattern, only the key after it", u)
	}
	if _, err := path.Match(key, ""); err != nil {
		return "", "", fmt.Errorf("%s: %w", u, err)
	}
	return bucket, key, nil
}

// Client lists and reads objects.
type Client struct {
	s3 *s3.Client
}

// New makes a client from the AWS SDK's default configuration chain (see
// the package doc). It fails only on a configuration that cannot be read;
// missing credentials show at the first request.
func New(ctx context.Context) (*Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("s3: reading the AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) {
		// The SDK's notes (a response without a checksum to validate)
		// would land in the middle of the command's output.
		o.Logger = logging.Nop{}
		// MinIO and Ceph serve buckets under the endpoint's path by
		// default; R2 and GCS take either.
		if o.BaseEndpoint != nil {
			o.UsePathStyle = true
		}
	})
	return &Client{s3: c}, nil
}

// List returns the objects pattern (s3://BUCKET/KEYGLOB) matches, sorted by
// key, and, for a directory (a key without wildcards that names no
// object), the names of the subdirectories it did not read. No match is
// no error: the caller says so.
func (c *Client) List(ctx context.Context, pattern string) (objs []Object, subdirs []string, err error) {
	bucket, key, err := Parse(pattern)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) ([]Object, []string, error) {
		return nil, nil, describe(ctx, pattern, err)
	}
	if !hasMeta(key) {
		if key != "" && !strings.HasSuffix(key, "/") {
			// The object named, if there is one, is listed first under
			// its own name as prefix: no other key sorts before it.
			out, err := c.s3.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &key, MaxKeys: aws.Int32(1)})
			if err != nil {
				return fail(err)
			}
			if len(out.Contents) == 1 && aws.ToString(out.Contents[0].Key) == key {
				return []Object{object(bucket, out.Contents[0])}, nil, nil
			}
			key += "/"
		}
		err := c.list(ctx, bucket, key, true, func(o Object) { objs = append(objs, o) },
			func(p string) { subdirs = append(subdirs, strings.TrimSuffix(strings.TrimPrefix(p, key), "/")) })
		if err != nil {
			return fail(err)
		}
		return objs, subdirs, nil
	}
	prefix := key[:strings.IndexAny(key, `*?[\`)]
	// A pattern with no '/' past its literal prefix matches no key with
	// one there ('*' stops at '/'): those are not listed.
	flat := !strings.Contains(key[len(prefix):], "/")
	err = c.list(ctx, bucket, prefix, flat, func(o Object) {
		if ok, _ := path.Match(key, o.Key); ok { // Parse checked the pattern
			objs = append(objs, o)
		}
	}, func(string) {})
	if err != nil {
		return fail(err)
	}
	return objs, nil, nil
}

// list calls obj for each object under prefix (directly under it when
// flat, calling dir for each common prefix), page by page. Directory
// markers (keys ending in '/') are no objects.
func (c *Client) list(ctx context.Context, bucket, prefix string, flat bool, obj func(Object), dir func(string)) error {
	in := &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix}
	if flat {
		in.Delimiter = aws.String("/")
	}
	p := s3.NewListObjectsV2Paginator(c.s3, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, o := range page.Contents {
			switch k := aws.ToString(o.Key); {
			case !strings.HasSuffix(k, "/"):
				obj(object(bucket, o))
			case flat && k != prefix: // a marker some servers list as a key
				dir(k)
			}
		}
		for _, cp := range page.CommonPrefixes {
			dir(aws.ToString(cp.Prefix))
		}
	}
	return nil
}

func object(bucket string, o types.Object) Object {
	return Object{Bucket: bucket, Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag)}
}

// hasMeta reports whether a key pattern has a wildcard (or an escape).
func hasMeta(key string) bool { return strings.ContainsAny(key, `*?[\`) }

// describe turns an error of the S3 API into one that names what (an
// s3:// URL) and says what to do, quoting no request URL: the SDK's own
// text names the endpoint's URL with its query string.
func describe(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", what, context.Cause(ctx))
	}
	status := 0
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code, msg := ae.ErrorCode(), ae.ErrorMessage()
		detail := code
		if msg != "" {
			detail += ": " + msg
		}
		switch {
		case code == "NoSuchBucket":
			return fmt.Errorf("%s: %w (%s)", what, ErrNoBucket, detail)
		case code == "AccessDenied" || code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" ||
			code == "InvalidToken" || code == "ExpiredToken" || code == "AllAccessDisabled" || status == 401 || status == 403:
			return fmt.Errorf("%s: %w (%s): check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, ~/.aws/credentials) and that they may read the bucket",
				what, ErrDenied, detail)
		case code == "PreconditionFailed" || status == 412:
			return fmt.Errorf("%s: %w", what, ErrChanged)
		case code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed" || status == 301:
			return fmt.Errorf("%s: %s: the bucket is in another region: set AWS_REGION to it", what, detail)
		}
		if status != 0 {
			return fmt.Errorf("%s: %s (HTTP %d)", what, detail, status)
		}
		return fmt.Errorf("%s: %s", what, detail)
	}
	var ue *url.Error
	if errors.As(err, &ue) { // no answer: the endpoint is not reached
		return fmt.Errorf("%s: cannot reach the S3 endpoint: %w", what, ue.Err)
	}
	var oe *smithy.OperationError
	if errors.As(err, &oe) {
		return fmt.Errorf("%s: %w", what, oe.Err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Errors wrapped by the errors of List and reading.
var (
	ErrNoBucket = errors.New("no such bucket")
	ErrDenied   = errors.New("access denied")
	ErrChanged  = errors.New("the object changed while it was read (its ETag is another): ingest again")
)
