package manifest

import "fmt"

// Parsed is what one file holds: its resources, notices and errors. A
// gateway keeps it while the file is unchanged, so that a change to one
// file of thousands reads that file alone; Combine then checks what needs
// every file (a resource defined twice). It is never modified once made.
type Parsed struct {
	set     Set
	named   []named
	errs    Errors
	notices []Notice
}

// named is a resource with a name, and the error it gets when a resource of
// the same kind, namespace and name comes first: errAt is its place among
// its file's errors.
type named struct {
	key   string // "Kind namespace/name"
	file  string
	line  int
	errAt int
	err   Error // without its message
}

// ParseFile reads the resources of one file.
func ParseFile(f File) *Parsed {
	p := &parser{set: &Set{}}
	p.file(f)
	return &Parsed{set: *p.set, named: p.named, errs: p.errs, notices: p.notices}
}

// Errors are the file's own errors, those Combine may add aside.
func (p *Parsed) Errors() Errors { return p.errs }

// Kinds tells which kinds of resource the file defines, by Kind.
func (p *Parsed) Kinds() map[string]int {
	kinds := map[string]int{}
	add := func(kind string, n int) {
		if n > 0 {
			kinds[kind] = n
		}
	}
	add("Gateway", len(p.set.Gateways))
	add("HTTPRoute", len(p.set.Routes))
	add("Backend", len(p.set.Backends))
	add("BackendTrafficPolicy", len(p.set.Policies))
	add("Secret", len(p.set.Secrets))
	return kinds
}

// Routes are the file's HTTPRoutes.
func (p *Parsed) Routes() []*HTTPRoute { return p.set.Routes }

// Combine is Parse of the files read by ParseFile, in order: a resource
// defined a second time is an error of its second definition.
func Combine(files []*Parsed) (*Set, []Notice, error) {
	var gateways, routes, backends, policies, secrets, names int
	for _, f := range files {
		gateways += len(f.set.Gateways)
		routes += len(f.set.Routes)
		backends += len(f.set.Backends)
		policies += len(f.set.Policies)
		secrets += len(f.set.Secrets)
		names += len(f.named)
	}
	set := &Set{
		Gateways: make([]*Gateway, 0, gateways),
		Routes:   make([]*HTTPRoute, 0, routes),
		Backends: make([]*Backend, 0, backends),
		Policies: make([]*BackendTrafficPolicy, 0, policies),
		Secrets:  make([]*Secret, 0, secrets),
	}
	var errs Errors
	var notices []Notice
	first := make(map[string]*named, names)
	for _, f := range files {
		fileErrs := f.errs
		added := 0
		for i := range f.named {
			n := &f.named[i]
			prev, dup := first[n.key]
			if !dup {
				first[n.key] = n
				continue
			}
			e := n.err
			e.Msg = fmt.Sprintf("%s is defined twice (first in %s:%d)", n.key, prev.file, prev.line)
			if added == 0 {
				fileErrs = append(Errors(nil), fileErrs...)
			}
			at := n.errAt + added
			fileErrs = append(fileErrs[:at], append(Errors{&e}, fileErrs[at:]...)...)
			added++
		}
		errs = append(errs, fileErrs...)
		notices = append(notices, f.notices...)
		set.Gateways = append(set.Gateways, f.set.Gateways...)
		set.Routes = append(set.Routes, f.set.Routes...)
		set.Backends = append(set.Backends, f.set.Backends...)
		set.Policies = append(set.Policies, f.set.Policies...)
		set.Secrets = append(set.Secrets, f.set.Secrets...)
	}
	if len(errs) > 0 {
		return nil, notices, errs
	}
	return set, notices, nil
}
