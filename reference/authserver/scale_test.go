package authserver

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ory/fosite"
	"golang.org/x/crypto/bcrypt"

	"github.com/fortune-tck/fortune-tck/internal/pgtest"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv/kvtest"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// The Scale benchmarks measure what grows with the data: each figure at a
// small and a large size, in every store, and print the ratio large/small
// (issue 30: within 2x). They build their data directly in the store, a
// thousand records per transaction, and run only with -scale (make scale-auth):
//
//	go test -run '^$' -bench Scale -benchtime 1x ./reference/authserver/ -args -scale
//
// Each figure is a fixed amount of work per round (b.N repeats the rounds);
// ns/op is the mean time of one operation at the large size.
var (
	scaleRun    = flag.Bool("scale", false, "run the Scale benchmarks (minutes: they build 100,000 tokens and users per store)")
	scaleSmall  = flag.Int("scale.small", 1000, "the small size of the Scale benchmarks")
	scaleLarge  = flag.Int("scale.large", 100_000, "the large size of the Scale benchmarks")
	scaleStores = flag.String("scale.stores", "bolt,memory,postgres", "the stores the Scale benchmarks run on")
	scaleIssues = flag.Int("scale.issues", 3000, "tokens issued per size and round (a sweep every minSweepWrites; the old one every 1,024)")
	scaleConns  = flag.Int("scale.conns", 32, "concurrent clients issuing tokens, as wrk -c32")
	scaleRounds = flag.Int("scale.rounds", 3, "rounds of each figure, the two sizes in turn")
)

// scaleFigure is the latencies of one size's operations, round by round.
type scaleFigure struct{ rounds [][]time.Duration }

func (f *scaleFigure) all() []time.Duration {
	return slices.Sorted(slices.Values(slices.Concat(f.rounds...)))
}

func (f *scaleFigure) mean() time.Duration {
	var sum time.Duration
	all := f.all()
	for _, d := range all {
		sum += d
	}
	return sum / time.Duration(max(len(all), 1))
}

func (f *scaleFigure) quantile(q float64) time.Duration {
	all := f.all()
	if len(all) == 0 {
		return 0
	}
	return all[min(int(q*float64(len(all))), len(all)-1)]
}

// slowest is the median of the rounds' slowest answers: a figure one
// stalled round (the machine is shared) does not make.
func (f *scaleFigure) slowest() time.Duration {
	var s []time.Duration
	for _, r := range f.rounds {
		if len(r) > 0 {
			s = append(s, slices.Max(r))
		}
	}
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func ratio(large, small time.Duration) float64 { return float64(large) / float64(max(small, 1)) }

// report reports both sizes' figures and prints their ratios, large/small.
func (m scaleMeasure) report(b *testing.B, store string, small, large *scaleFigure) {
	b.ReportMetric(float64(large.mean().Nanoseconds()), "ns/op")
	line := fmt.Sprintf("scale: %s, %s, %d -> %d:", m.name, store, *scaleSmall, *scaleLarge)
	for _, fig := range []struct {
		name string
		of   func(*scaleFigure) time.Duration
	}{
		{"median", func(f *scaleFigure) time.Duration { return f.quantile(0.5) }},
		{"mean", (*scaleFigure).mean},
		{"p99", func(f *scaleFigure) time.Duration { return f.quantile(0.99) }},
		{"slowest", (*scaleFigure).slowest},
	} {
		if !m.slowest && (fig.name == "p99" || fig.name == "slowest") {
			continue
		}
		s, l := fig.of(small), fig.of(large)
		b.ReportMetric(ms(s), fig.name+"-ms-small")
		b.ReportMetric(ms(l), fig.name+"-ms-large")
		b.ReportMetric(ratio(l, s), fig.name+"-ratio")
		line += fmt.Sprintf(" %s %.5g ms -> %.5g ms (x%.2f);", fig.name, ms(s), ms(l), ratio(l, s))
	}
	fmt.Println(strings.TrimSuffix(line, ";"))
}

// scaleStoresOf opens a fresh store of each kind for every call of the
// function it returns; PostgreSQL is started once per benchmark.
func scaleStoresOf(b *testing.B) map[string]func(b *testing.B) kv.Store {
	if !*scaleRun {
		b.Skip("a Scale benchmark: run with -args -scale (make scale)")
	}
	var (
		once sync.Once
		pg   *pgtest.Server
		dbs  int
	)
	all := map[string]func(b *testing.B) kv.Store{
		"memory": func(*testing.B) kv.Store { return kv.NewMemory() },
		"bolt": func(b *testing.B) kv.Store {
			s, err := kv.OpenBolt(filepath.Join(b.TempDir(), "auth.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Close() })
			return s
		},
		"postgres": func(sb *testing.B) kv.Store {
			once.Do(func() { pg = pgtest.Start(b) })
			dbs++
			return kvtest.OpenPostgresDatabase(sb, pg, fmt.Sprintf("scale%d", dbs))
		},
	}
	out := map[string]func(b *testing.B) kv.Store{}
	for name := range strings.SplitSeq(*scaleStores, ",") {
		open, ok := all[name]
		if !ok {
			b.Fatalf("-scale.stores: unknown store %q (bolt, memory, postgres)", name)
		}
		out[name] = open
	}
	return out
}

// scaleMeasure is one figure measured at both sizes.
type scaleMeasure struct {
	name    string
	slowest bool // the slowest answers count (p99 and slowest are reported)
	run     func(b *testing.B, ts *testServer) []time.Duration
}

// settle vacuums and analyzes a PostgreSQL store after its bulk load, as
// autovacuum would a while later: the figures are then of the steady state,
// not of autovacuum's work running beside the large size's first rounds.
func settle(b *testing.B, db kv.Store) {
	if _, ok := db.(*kv.Postgres); !ok {
		return
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.String()) // pgtest's URL has no password to redact
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE authserver_kv"); err != nil {
		b.Fatal(err)
	}
}

// sizes builds a server of each size with fill, then runs each measure on
// them in turn, -scale.rounds times (small, large, small, large, ...: the
// two sizes share the machine's pace), and reports the ratios. b.N repeats
// the rounds.
func sizes(b *testing.B, unit, storeName string, open func(*testing.B) kv.Store,
	fill func(b *testing.B, ts *testServer, n int), measures ...scaleMeasure) {
	var servers [2]*testServer
	for i, n := range []int{*scaleSmall, *scaleLarge} {
		start := time.Now()
		db := open(b)
		servers[i] = newTestServer(b, func(o *Options) { o.Store = db })
		fill(b, servers[i], n)
		settle(b, db)
		b.Logf("%s: built %d %s in %s", storeName, n, unit, time.Since(start).Round(time.Millisecond))
	}
	for _, m := range measures {
		b.Run(m.name, func(b *testing.B) {
			var figs [2]scaleFigure
			for range b.N * *scaleRounds {
				for i, ts := range servers {
					figs[i].rounds = append(figs[i].rounds, m.run(b, ts))
				}
			}
			m.report(b, storeName, &figs[0], &figs[1])
		})
	}
}

// BenchmarkScaleIssue issues client_credentials tokens, -scale.conns at
// once, with 1,000 and with 100,000 live access tokens stored: the slowest
// answer is the one that waited for a sweep of expired tokens.
func BenchmarkScaleIssue(b *testing.B) {
	for name, open := range scaleStoresOf(b) {
		b.Run(name, func(b *testing.B) {
			sizes(b, "tokens", name, open,
				func(b *testing.B, ts *testServer, n int) { fillTokens(b, ts, n, 12*time.Hour) },
				scaleMeasure{"issue", true, issueTokens})
		})
	}
}

// BenchmarkScaleSweep is BenchmarkScaleIssue with as many expired tokens as
// live ones stored, all waiting for the sweep: how long its batches hold
// the issuers back.
func BenchmarkScaleSweep(b *testing.B) {
	for name, open := range scaleStoresOf(b) {
		b.Run(name, func(b *testing.B) {
			sizes(b, "tokens", name, open,
				func(b *testing.B, ts *testServer, n int) {
					fillTokens(b, ts, n, 12*time.Hour)
					fillTokens(b, ts, n, -time.Minute)
				},
				scaleMeasure{"issue-while-sweeping", true, issueTokens})
		})
	}
}

// BenchmarkScaleSweepBatch times one sweep transaction, store.SweepBatch expired
// tokens deleted, with 1,000 and with 100,000 live ones stored: how long a
// sweep holds back the writer that runs it (and, in bbolt and memory, every
// other writer).
func BenchmarkScaleSweepBatch(b *testing.B) {
	for name, open := range scaleStoresOf(b) {
		b.Run(name, func(b *testing.B) {
			sizes(b, "tokens", name, open,
				func(b *testing.B, ts *testServer, n int) { fillTokens(b, ts, n, 12*time.Hour) },
				scaleMeasure{"sweep-batch", true, func(b *testing.B, ts *testServer) []time.Duration {
					var lat []time.Duration
					for range 20 {
						fillTokens(b, ts, store.SweepBatch, -time.Minute)
						start := time.Now()
						n, _, err := ts.store.SweepAccessTokens(time.Now())
						lat = append(lat, time.Since(start))
						if err != nil || n != store.SweepBatch {
							b.Fatalf("sweep: %d deleted, %v", n, err)
						}
					}
					return lat
				}})
		})
	}
}

// fillTokens stores n client_credentials access tokens of the admin client
// that expire in ttl (negative: expired), as the token endpoint stores
// them, a thousand per transaction.
func fillTokens(b *testing.B, ts *testServer, n int, ttl time.Duration) {
	b.Helper()
	client, err := ts.store.GetClient(context.Background(), DefaultAdminClientID)
	if err != nil {
		b.Fatal(err)
	}
	exp := time.Now().Add(ttl)
	for done := 0; done < n; {
		batch := min(1000, n-done)
		err := ts.store.Update(func(tx kv.Tx) error {
			for range batch {
				sess := store.NewClientSession()
				sess.Subject = DefaultAdminClientID
				sess.SetExpiresAt(fosite.AccessToken, exp)
				req := &fosite.Request{
					ID: store.NewID(), RequestedAt: time.Now().UTC(), Client: client, Session: sess,
					GrantedScope: fosite.Arguments(strings.Fields(adminScopeList)),
					Form:         url.Values{"grant_type": {"client_credentials"}},
				}
				if err := ts.store.InsertAccessToken(tx, fakeSignature(), req); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		done += batch
	}
}

// fakeSignature is a random string as long as an RS256 signature.
func fakeSignature() string {
	var sig [256]byte
	_, _ = rand.Read(sig[:])
	return base64.RawURLEncoding.EncodeToString(sig[:])
}

// issueTokens issues -scale.issues tokens through the handler, from
// -scale.conns goroutines, and times each.
func issueTokens(b *testing.B, ts *testServer) []time.Duration {
	form := url.Values{"grant_type": {"client_credentials"}}.Encode()
	lat := make(chan time.Duration, *scaleIssues)
	next := make(chan struct{}, *scaleIssues)
	for range *scaleIssues {
		next <- struct{}{}
	}
	close(next)
	var wg sync.WaitGroup
	for range *scaleConns {
		wg.Go(func() {
			for range next {
				req := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(form))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.SetBasicAuth(DefaultAdminClientID, DefaultAdminClientSecret)
				rec := httptest.NewRecorder()
				start := time.Now()
				ts.ServeHTTP(rec, req)
				lat <- time.Since(start)
				if rec.Code != http.StatusOK {
					b.Errorf("issue: %d %s", rec.Code, rec.Body)
					return
				}
			}
		})
	}
	wg.Wait()
	close(lat)
	var out []time.Duration
	for d := range lat {
		out = append(out, d)
	}
	return out
}

// BenchmarkScaleUserFilter answers GET /Users?filter=... with 1,000 and
// with 100,000 users: eq on userName (in another case than stored), email
// and id from the indexes, and a filter no index serves (co), which reads
// every user.
func BenchmarkScaleUserFilter(b *testing.B) {
	for name, open := range scaleStoresOf(b) {
		b.Run(name, func(b *testing.B) {
			filter := func(format string, times int) func(*testing.B, *testServer) []time.Duration {
				return func(b *testing.B, ts *testServer) []time.Duration { return filterUsers(b, ts, format, times) }
			}
			sizes(b, "users", name, open, fillUsers,
				scaleMeasure{"userName-eq", false, filter(`userName eq "SCALE-%d"`, 200)},
				scaleMeasure{"email-eq", false, filter(`email eq "scale-%d@Test.org"`, 200)},
				scaleMeasure{"id-eq", false, filter(`id eq "%s"`, 200)},
				scaleMeasure{"userName-co-scan", false, filter(`userName co "le-%d"`, 3)},
			)
		})
	}
}

// fillUsers stores n users scale-0 ... scale-(n-1), a thousand per
// transaction, through insertUser (the indexes included), with one bcrypt
// hash for all.
func fillUsers(b *testing.B, ts *testServer, n int) {
	b.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	if err != nil {
		b.Fatal(err)
	}
	created := time.Now().UTC().Add(-time.Duration(n) * time.Millisecond)
	for done := 0; done < n; {
		batch := min(1000, n-done)
		err := ts.store.Update(func(tx kv.Tx) error {
			for i := done; i < done+batch; i++ {
				t := created.Add(time.Duration(i) * time.Millisecond)
				u := &store.User{
					ID: store.NewID(), UserName: fmt.Sprintf("scale-%d", i), Email: fmt.Sprintf("scale-%d@test.org", i),
					GivenName: "Scale", FamilyName: fmt.Sprint(i), PasswordHash: hash, Active: true, Verified: true,
					Created: t, PasswordModified: t,
				}
				if err := store.InsertUser(tx, u); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		done += batch
	}
	ts.users += n
}

// filterUsers sends times filters, each for a user picked across the
// whole table, and checks that each finds exactly that user.
func filterUsers(b *testing.B, ts *testServer, format string, times int) []time.Duration {
	token := adminToken(b, ts)
	n := ts.users
	var lat []time.Duration
	for i := range times {
		pick := (i*7919 + 13) % n
		arg := any(pick)
		if strings.Contains(format, "%s") {
			u, _ := ts.store.UserByName(fmt.Sprintf("scale-%d", pick))
			arg = u.ID
		}
		filter := fmt.Sprintf(format, arg)
		req := httptest.NewRequest(http.MethodGet, "/Users?filter="+url.QueryEscape(filter), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		start := time.Now()
		ts.ServeHTTP(rec, req)
		lat = append(lat, time.Since(start))
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), fmt.Sprintf(`"userName":"scale-%d"`, pick)) {
			b.Fatalf("%s: %d %.300s", filter, rec.Code, rec.Body)
		}
	}
	return lat
}

// BenchmarkCreateUser is POST /Users at the default bcrypt cost, against
// its bcrypt hash alone (Baseline): what the rest of creating a user costs.
func BenchmarkCreateUser(b *testing.B) {
	b.Run("Baseline", func(b *testing.B) {
		for b.Loop() {
			if _, err := bcrypt.GenerateFromPassword([]byte("Koala-123!"), bcrypt.DefaultCost); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, cost := range []int{bcrypt.DefaultCost, bcrypt.MinCost} {
		b.Run(fmt.Sprintf("POST-cost%d", cost), func(b *testing.B) {
			ts := newTestServer(b, func(o *Options) { o.HashCost = cost })
			token := adminToken(b, ts)
			i := 0
			for b.Loop() {
				i++
				body := fmt.Sprintf(`{"userName":"bench-%d","password":"Koala-123!","emails":[{"value":"bench-%d@test.org"}]}`, i, i)
				if r := api(b, ts, "POST", "/Users", token, body); r.status != http.StatusCreated {
					b.Fatalf("%d %s", r.status, r.body)
				}
			}
		})
	}
}
