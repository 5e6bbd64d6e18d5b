package target

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Container is a service given as a container image: the harness starts it before the scenarios (with
// testcontainers-go), publishes Port on a free port of 127.0.0.1, waits until it is ready, hands the scenarios
// its address, and removes it after the run, also after a failure or Ctrl-C. Third-party implementations are
// usually published this way (UAA, Spring Cloud Config Server).
//
// In Command, Env values and the service's url or issuer, $TCK_URL is the service's address on the host
// (http://127.0.0.1:PORT), $TCK_HOST_PORT that port and $TCK_PORT the container's port: a server whose issuer or
// redirect URI must be known at start can be told it. A service with a container and no url (or issuer) gets
// $TCK_URL as its url.
type Container struct {
	// Image is used as present locally; it is pulled (once) only when absent.
	Image string `yaml:"image"`
	// Command replaces the image's command (CMD); the entrypoint stays.
	Command []string          `yaml:"command"`
	Env     map[string]string `yaml:"env"`
	// Files are host files or folders mounted into the container.
	Files []Mount `yaml:"files"`
	// Port is the port the service listens on inside the container.
	Port int `yaml:"port"`
	// HostPort fixes the port of 127.0.0.1 it is published on, for an image whose configuration files must name
	// its address; by default a free port is chosen.
	HostPort int `yaml:"hostPort"`
	// Ready says when the service is ready; by default when it answers HTTP at / (any status below 500).
	Ready Readiness `yaml:"ready"`
}

// Mount is a host path (relative to the target file's folder) mounted at an absolute path of the container.
type Mount struct {
	Source   string `yaml:"source"`
	Target   string `yaml:"target"`
	ReadOnly bool   `yaml:"readOnly"`
}

// Readiness is how the harness knows a started container is ready: an HTTP path answering below 500, or a line
// of its log matching a regular expression (both when both are given), within Timeout (default 60s).
type Readiness struct {
	HTTP    string   `yaml:"http"`
	Log     string   `yaml:"log"`
	Timeout Duration `yaml:"timeout"`
}

// URLPlaceholder stands for a container's address on the host in the fields of its service.
const URLPlaceholder = "$TCK_URL"

// Containers lists the services of the target given as containers, by their field path, in start order.
func (t *Target) Containers() []ContainerService {
	var out []ContainerService
	s := &t.Services
	if as := s.AuthServer; as != nil && as.Container != nil {
		out = append(out, ContainerService{Field: "services.authServer", Container: as.Container,
			SetURL: func(base string) {
				if as.URL == "" && as.Issuer == "" && as.Discovery == "" {
					as.URL = base
				}
				as.URL = strings.TrimRight(strings.ReplaceAll(as.URL, URLPlaceholder, base), "/")
				as.Issuer = strings.ReplaceAll(as.Issuer, URLPlaceholder, base)
				as.Discovery = strings.ReplaceAll(as.Discovery, URLPlaceholder, base)
			}})
	}
	for _, svc := range []struct {
		name string
		s    *Service
	}{{"fortune", s.Fortune}, {"greeting", s.Greeting}} {
		if svc.s != nil && svc.s.Container != nil {
			out = append(out, ContainerService{Field: "services." + svc.name, Container: svc.s.Container,
				SetURL: func(base string) { svc.s.URL = strings.TrimRight(fill(svc.s.URL, base), "/") }})
		}
	}
	if cs := s.ConfigServer; cs != nil && cs.Container != nil {
		out = append(out, ContainerService{Field: "services.configServer", Container: cs.Container,
			SetURL: func(base string) { cs.URL = strings.TrimRight(fill(cs.URL, base), "/") }})
	}
	return out
}

// ContainerService is a service to start from an image; SetURL gives the service its address once known.
type ContainerService struct {
	Field     string
	Container *Container
	SetURL    func(base string)
}

// fill is the URL field with the container's address: the address itself when the field is empty.
func fill(field, base string) string {
	if field == "" {
		return base
	}
	return strings.ReplaceAll(field, URLPlaceholder, base)
}

// deferredURL tells a URL field that names the container's address, checked once the container runs.
func deferredURL(c *Container, raw string) bool {
	return c != nil && (raw == "" || strings.Contains(raw, URLPlaceholder))
}

func (c *Container) validate(field string) []string {
	if c == nil {
		return nil
	}
	field += ".container"
	var problems []string
	if strings.TrimSpace(c.Image) == "" {
		problems = append(problems, field+".image: required: the image to start, e.g. cloudfoundry/uaa:77.10.0")
	}
	if c.Port < 1 || c.Port > 65535 {
		problems = append(problems, fmt.Sprintf("%s.port: required: the port the service listens on inside the container (1 to 65535), not %d", field, c.Port))
	}
	if c.HostPort < 0 || c.HostPort > 65535 {
		problems = append(problems, fmt.Sprintf("%s.hostPort: %d is not a port (1 to 65535; leave it out for a free one)", field, c.HostPort))
	}
	for i, m := range c.Files {
		f := fmt.Sprintf("%s.files[%d]", field, i)
		if m.Source == "" {
			problems = append(problems, f+".source: required: a host file or folder")
		}
		if !strings.HasPrefix(m.Target, "/") {
			problems = append(problems, fmt.Sprintf("%s.target: %q is not an absolute path in the container", f, m.Target))
		}
	}
	if p := c.Ready.HTTP; p != "" && !strings.HasPrefix(p, "/") {
		problems = append(problems, fmt.Sprintf("%s.ready.http: %q is not a path starting with /", field, p))
	}
	if _, err := regexp.Compile(c.Ready.Log); err != nil {
		problems = append(problems, fmt.Sprintf("%s.ready.log: not a regular expression: %v", field, err))
	}
	return problems
}

// resolveFiles makes relative paths of the file relative to dir (the target file's folder): mount sources, and
// a configuration repository given as a relative path.
func (t *Target) resolveFiles(dir string) {
	if cs := t.Services.ConfigServer; cs != nil && isRelativePath(cs.Repository.URI) {
		cs.Repository.URI = filepath.Join(dir, cs.Repository.URI)
	}
	for _, cs := range t.Containers() {
		for i, m := range cs.Container.Files {
			if m.Source != "" && !filepath.IsAbs(m.Source) {
				cs.Container.Files[i].Source = filepath.Join(dir, m.Source)
			}
		}
	}
}
