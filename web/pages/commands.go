package pages

import (
	"context"
	"html"
	"io"
	"strings"

	"github.com/a-h/templ"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
)

// connection is how the dashboard reaches the cluster, as Kafka's tools
// take it: the bootstrap servers and, on a secured cluster, the path of
// the properties file the dashboard was given (--command-config), never
// its content. Every command a page prints carries it, so that it runs
// as printed with the dashboard's own rights.
type connection struct {
	Bootstrap     string
	CommandConfig string
	User          string
}

// Connection is the page's connection to the cluster.
func (v layoutView) Connection() connection {
	return connection{Bootstrap: v.KafkaAddr, CommandConfig: v.CommandConfig, User: v.User}
}

// command is tool's command line connected as the dashboard is, args
// after the connection.
func (c connection) command(tool string, args ...string) shellCommand {
	out := shellCommand{tool, "--bootstrap-server " + c.Bootstrap}
	if c.CommandConfig != "" {
		out = append(out, "--command-config "+shellWord(c.CommandConfig))
	}
	return append(out, args...)
}

// shellWord quotes s for a POSIX shell when it holds anything but the
// characters a path usually has.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellCommand is a command line as its words, an option with its value
// one word: the page breaks a long line between words only.
type shellCommand []string

// String is the command line as typed.
func (c shellCommand) String() string { return strings.Join(c, " ") }

// commandLine shows a command to copy in a <pre>, one span a word, so
// that a long line wraps between words (an option stays with its value)
// and a copy is exactly the command, single spaces (a templ component
// would add whitespace a <pre> keeps).
func commandLine(c shellCommand, testID string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		var b strings.Builder
		b.WriteString(`<pre class="command"><code data-testid="` + html.EscapeString(testID) + `">`)
		for i, word := range c {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(`<span class="word">` + html.EscapeString(word) + `</span>`)
		}
		b.WriteString(`</code></pre>`)
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// rightMessage is the sentence under a command naming the right it needs
// and, when the dashboard found out, whether its user holds it.
func rightMessage(r cluster.Right, user string) catalog.Message {
	args := []string{"operation", r.Operation, "resource", r.Resource, "name", r.Name, "user", user}
	switch {
	case user == "" && !r.Denied:
		return catalog.M("command.rightNoUser", args...)
	case r.Denied:
		return catalog.M("command.rightDenied", append(args, "code", r.Error)...)
	case r.Known:
		return catalog.M("command.rightHeld", args...)
	default:
		return catalog.M("command.rightUnknown", args...)
	}
}
