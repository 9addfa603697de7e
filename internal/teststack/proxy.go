package teststack

import (
	"io"
	"net"
	"sync"
	"time"
)

// DelayProxy is a TCP proxy that holds every byte from the client for
// Delay before it forwards it to the target: one-way delay on the
// client→gateway path, as a slow or distant network adds (what tc netem
// would do inside a network namespace, without needing one). Bytes from
// the target go back at once.
type DelayProxy struct {
	Addr   string
	Target string
	Delay  time.Duration
	l      net.Listener
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
}

// StartDelayProxy listens on a free loopback port.
func StartDelayProxy(target string, delay time.Duration) (*DelayProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &DelayProxy{Addr: l.Addr().String(), Target: target, Delay: delay, l: l, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

func (p *DelayProxy) track(c net.Conn, on bool) {
	p.mu.Lock()
	if on {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
	p.mu.Unlock()
}

func (p *DelayProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", p.Target)
		if err != nil {
			c.Close()
			continue
		}
		p.track(c, true)
		p.track(u, true)
		p.wg.Add(2)
		go func() { defer p.wg.Done(); p.delayed(c, u) }()
		go func() {
			defer p.wg.Done()
			io.Copy(c, u)
			c.Close()
			p.track(c, false)
		}()
	}
}

type chunk struct {
	b  []byte
	at time.Time
}

// delayed forwards c's bytes to u, each chunk Delay after it was read.
func (p *DelayProxy) delayed(c, u net.Conn) {
	q := make(chan chunk, 1024)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := c.Read(buf)
			if n > 0 {
				q <- chunk{buf[:n], time.Now().Add(p.Delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for ch := range q {
		time.Sleep(time.Until(ch.at))
		if _, err := u.Write(ch.b); err != nil {
			break
		}
	}
	u.Close()
	p.track(u, false)
}

// Close stops accepting and closes every connection.
func (p *DelayProxy) Close() {
	p.l.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
