// Package rabbitmq says how to run a private RabbitMQ node from Debian's rabbitmq-server package: its files in
// a folder of its own, its ports on 127.0.0.1 only, and its own epmd (Erlang's port mapper) in the foreground,
// so that nothing outlives the node and no other node on the machine is disturbed. The reference's process stack
// (reference up --processes) and the tests (internal/rabbittest) run it this way; neither uses the system's
// service, its configuration or its data.
package rabbitmq

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// script is the start script Debian's package installs. /usr/sbin/rabbitmq-server wraps it to run as the
// rabbitmq user with the system's configuration; the script itself runs as whoever calls it.
const script = "/usr/lib/rabbitmq/bin/rabbitmq-server"

// Missing says what to install when Program finds no rabbitmq-server.
const Missing = "rabbitmq-server is not installed: run `make deps` as root, or apt-get install rabbitmq-server"

// Program returns the start script of rabbitmq-server, and epmd, Erlang's port mapper, which comes with it.
func Program() (server, epmd string, err error) {
	if _, err := os.Stat(script); err != nil {
		return "", "", errors.New(Missing)
	}
	epmd, err = exec.LookPath("epmd")
	if err != nil {
		// Debian keeps epmd beside the Erlang runtime, not always on PATH.
		matches, _ := filepath.Glob("/usr/lib/erlang/erts-*/bin/epmd")
		if len(matches) == 0 {
			return "", "", errors.New("epmd (Erlang's port mapper) is missing: reinstall erlang-base, which rabbitmq-server needs")
		}
		epmd = matches[len(matches)-1]
	}
	return script, epmd, nil
}

// Node is one private node: its folder and its ports, all on 127.0.0.1.
type Node struct {
	Dir string
	// Port is the AMQP listener; DistPort and EpmdPort are Erlang's distribution and port mapper, which a
	// node needs even alone.
	Port, DistPort, EpmdPort int
	// VHosts are created at boot besides "/", each open to the default user guest: tests give each scenario
	// a virtual host of its own, since Spring Cloud Bus's exchange name is fixed.
	VHosts []string
}

// Prepare writes the node's configuration into Dir: the listener, no plugins, and the virtual hosts.
func (n Node) Prepare() error {
	if err := os.MkdirAll(n.Dir, 0o755); err != nil {
		return err
	}
	conf := fmt.Sprintf("listeners.tcp.default = 127.0.0.1:%d\n", n.Port) +
		"definitions.import_backend = local_filesystem\n" +
		"definitions.local.path = " + filepath.Join(n.Dir, "definitions.json") + "\n" +
		"log.console = true\nlog.console.level = warning\nlog.file = false\n"
	files := map[string]string{
		"rabbitmq.conf":    conf,
		"enabled_plugins":  "[].\n",
		"definitions.json": n.definitions(),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(n.Dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// definitions are the default user guest (password guest, which RabbitMQ admits from loopback only), "/" and
// the other virtual hosts, each open to guest: a node that imports definitions at boot makes none of its own.
func (n Node) definitions() string {
	vhosts := []string{`{"name":"/"}`}
	perms := []string{permission("/")}
	for _, v := range n.VHosts {
		vhosts = append(vhosts, fmt.Sprintf(`{"name":%q}`, v))
		perms = append(perms, permission(v))
	}
	user := fmt.Sprintf(`{"name":"guest","password_hash":%q,"hashing_algorithm":"rabbit_password_hashing_sha256","tags":["administrator"]}`,
		passwordHash("guest"))
	return `{"users":[` + user + `],"vhosts":[` + strings.Join(vhosts, ",") + `],"permissions":[` + strings.Join(perms, ",") + "]}\n"
}

func permission(vhost string) string {
	return fmt.Sprintf(`{"user":"guest","vhost":%q,"configure":".*","write":".*","read":".*"}`, vhost)
}

// passwordHash is RabbitMQ's rabbit_password_hashing_sha256: a 4-byte salt, then SHA-256 of the salt and the
// password, in base64.
func passwordHash(password string) string {
	salt := make([]byte, 4)
	_, _ = rand.Read(salt) // crypto/rand never fails
	sum := sha256.Sum256(append(append([]byte{}, salt...), password...))
	return base64.StdEncoding.EncodeToString(append(salt, sum[:]...))
}

// Env is the environment of the start script: every file in Dir, the ports, and the distribution bound to
// 127.0.0.1. HOME holds Erlang's cookie.
func (n Node) Env() []string {
	d := n.Dir
	return []string{
		"HOME=" + d,
		"RABBITMQ_NODENAME=tck" + strconv.Itoa(n.Port) + "@localhost",
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT=" + strconv.Itoa(n.Port),
		"RABBITMQ_DIST_PORT=" + strconv.Itoa(n.DistPort),
		"ERL_EPMD_PORT=" + strconv.Itoa(n.EpmdPort),
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"RABBITMQ_CONFIG_FILE=" + filepath.Join(d, "rabbitmq.conf"),
		"RABBITMQ_ADVANCED_CONFIG_FILE=" + filepath.Join(d, "advanced.config"),
		"RABBITMQ_ENABLED_PLUGINS_FILE=" + filepath.Join(d, "enabled_plugins"),
		"RABBITMQ_CONF_ENV_FILE=" + filepath.Join(d, "rabbitmq-env.conf"),
		"RABBITMQ_MNESIA_BASE=" + filepath.Join(d, "mnesia"),
		"RABBITMQ_LOG_BASE=" + filepath.Join(d, "log"),
		"RABBITMQ_PID_FILE=" + filepath.Join(d, "rabbitmq.pid"),
		"RABBITMQ_LOGS=-",
		// The script then runs the Erlang VM in its own process (exec), so that a signal to the process
		// reaches the broker; -noinput keeps the Erlang shell closed all the same.
		"RABBITMQ_ALLOW_INPUT=1",
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-noinput -kernel inet_dist_use_interface {127,0,0,1}",
	}
}

// EpmdArgs run epmd in the foreground on the node's port, on 127.0.0.1: the node finds it running and starts
// no daemon of its own, which would outlive it.
func (n Node) EpmdArgs() []string {
	return []string{"-port", strconv.Itoa(n.EpmdPort), "-address", "127.0.0.1"}
}

// URL is the AMQP URL of a virtual host ("/" or one of VHosts) for the default user.
func (n Node) URL(vhost string) string {
	return "amqp://guest:guest@" + n.Addr() + "/" + url.PathEscape(vhost)
}

// Addr is the AMQP listener's host:port.
func (n Node) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.Port)) }

// Ready is nil once the node accepts an AMQP connection on "/".
func (n Node) Ready() error {
	conn, err := amqp.DialConfig(n.URL("/"), amqp.Config{Dial: amqp.DefaultDial(2 * time.Second)})
	if err != nil {
		return err
	}
	return conn.Close()
}
