package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
)

// ServiceTimeout bounds one ShouldRateLimit call by default: the bound of
// one Redis call in the other counting mode, so that both fail open or
// closed alike. Envoy's own default is 20 ms (the filter's timeout, which
// Envoy Gateway leaves unset); on a loaded machine that turns a slow answer
// into a pass or a 500, so the reference waits longer unless told.
const ServiceTimeout = RedisTimeout

// Service is an envoy.service.ratelimit.v3 rate limit service, the
// envoyproxy/ratelimit that Envoy Gateway deploys: Global rules are asked
// of it, one ShouldRateLimit call per domain, instead of counted here.
type Service struct {
	conn    *grpc.ClientConn
	client  rlsv3.RateLimitServiceClient
	timeout time.Duration
	addr    string
}

// CheckServiceURL tells whether rawURL is an address NewService accepts:
// grpc://HOST:PORT.
func CheckServiceURL(rawURL string) error {
	_, err := serviceAddr(rawURL)
	return err
}

func serviceAddr(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err == nil && (u.Scheme != "grpc" || u.Port() == "" || u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.User != nil || u.RawQuery != "") {
		err = errors.New("want grpc://HOST:PORT")
	}
	if err != nil {
		return "", fmt.Errorf("invalid rate limit service address %q: %w", rawURL, err)
	}
	return net.JoinHostPort(u.Hostname(), u.Port()), nil
}

// NewService returns a client of the service at rawURL (grpc://HOST:PORT,
// plaintext). It does not connect: a service that is down at start is
// handled like one that goes down later. timeout bounds each call
// (ServiceTimeout when 0).
func NewService(rawURL string, timeout time.Duration) (*Service, error) {
	addr, err := serviceAddr(rawURL)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = ServiceTimeout
	}
	// A restarted service must be found again within a second, not after
	// gRPC's default backoff of up to two minutes; meanwhile calls fail at
	// once (fail fast), and the policy's failure mode decides.
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: time.Second,
		}))
	if err != nil {
		return nil, fmt.Errorf("rate limit service at %s: %w", addr, err)
	}
	return &Service{conn: conn, client: rlsv3.NewRateLimitServiceClient(conn), timeout: timeout, addr: addr}, nil
}

// ask sends one ShouldRateLimit request. An answer whose overall code is
// UNKNOWN is an error: Envoy's release build would let the request pass
// (its debug build asserts it never comes), but it is no answer, and the
// policy's failure mode must decide.
func (s *Service) ask(ctx context.Context, c serviceCall) (*rlsv3.RateLimitResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	resp, err := s.client.ShouldRateLimit(ctx, &rlsv3.RateLimitRequest{Domain: c.domain, Descriptors: c.descriptors})
	if err == nil && resp.GetOverallCode() == rlsv3.RateLimitResponse_UNKNOWN {
		err = errors.New("answer without an overall code")
	}
	if err != nil {
		return nil, fmt.Errorf("rate limit service at %s: %w", s.addr, err)
	}
	return resp, nil
}

// Close closes the connection.
func (s *Service) Close() error { return s.conn.Close() }

// String is the service's address.
func (s *Service) String() string { return "grpc://" + s.addr }

// ask decides r's Global rules by asking the service, one call per domain
// in domain order as Envoy's rate limit filters do, the first answer over
// the limit ending the request. The headers come from the answers'
// descriptor statuses, as Envoy's DRAFT_VERSION_03 headers do, together
// with those of the Local rules in st.
func (l *Limiter) ask(ctx context.Context, r *http.Request, client netip.Addr, rt *Route, st *statuses) Decision {
	var added [][2]string
	for _, c := range rt.serviceCalls(r, client, false) {
		resp, err := l.service.ask(ctx, c)
		switch {
		case err != nil && l.failClosed:
			l.failures.failed(err, "refusing requests (fail closed)")
			return Decision{Outcome: Failed}
		case err != nil:
			l.failures.failed(err, "letting requests pass (fail open)")
			continue
		}
		l.failures.ok()
		st.addService(resp.GetStatuses())
		for _, h := range resp.GetResponseHeadersToAdd() {
			added = append(added, [2]string{h.GetKey(), h.GetValue()})
		}
		if resp.GetOverallCode() == rlsv3.RateLimitResponse_OVER_LIMIT {
			d := st.decision(Limited, false)
			d.added = added
			return d
		}
	}
	d := st.decision(Pass, false)
	d.added = added
	return d
}

// addService records the statuses of an answer that carry a limit: the
// others are descriptors the service has no limit for.
func (s *statuses) addService(answer []*rlsv3.RateLimitResponse_DescriptorStatus) {
	for _, a := range answer {
		limit := a.GetCurrentLimit()
		if limit == nil {
			continue
		}
		s.items = append(s.items, status{
			requests:  int64(limit.GetRequestsPerUnit()),
			window:    unitSeconds[limit.GetUnit()],
			remaining: int64(a.GetLimitRemaining()),
			reset:     a.GetDurationUntilReset().GetSeconds(),
			name:      limit.GetName(),
		})
	}
}

// unitSeconds are the windows of the service's units, as Envoy reads them
// for x-ratelimit-limit (UNKNOWN: 0, no quota policy).
var unitSeconds = map[rlsv3.RateLimitResponse_RateLimit_Unit]int64{
	rlsv3.RateLimitResponse_RateLimit_SECOND: 1,
	rlsv3.RateLimitResponse_RateLimit_MINUTE: 60,
	rlsv3.RateLimitResponse_RateLimit_HOUR:   3600,
	rlsv3.RateLimitResponse_RateLimit_DAY:    86400,
	rlsv3.RateLimitResponse_RateLimit_WEEK:   7 * 86400,
	rlsv3.RateLimitResponse_RateLimit_MONTH:  30 * 86400,
	rlsv3.RateLimitResponse_RateLimit_YEAR:   365 * 86400,
}
