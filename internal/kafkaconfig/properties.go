package kafkaconfig

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// property is one key=value setting of a properties file, with the line
// its logical line starts on. bare is a line that holds only a key (Java
// reads it as the key with an empty value).
type property struct {
	key, value string
	line       int
	bare       bool
}

// syntaxError is a line that java.util.Properties would not read as a
// setting (or that no Kafka setting could be); line is 1-based, key is
// the setting whose value holds a bad escape, msgKey the catalogue key.
type syntaxError struct {
	line   int
	key    string
	msgKey string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("line %d: %s", e.line, catalog.Text(catalog.English, e.msgKey, catalog.Args{"where": "line " + strconv.Itoa(e.line)}))
}

// parseProperties reads text the way java.util.Properties.load does:
// '#' and '!' start comment lines, a key ends at the first unescaped '=',
// ':' or whitespace, a line ending in an odd number of backslashes goes on
// in the next line (whose leading whitespace is dropped), and \t \n \r \f
// \uXXXX and \<any> are escapes in keys and values. The text is taken as
// UTF-8 (Java's tools read ISO-8859-1; the two agree on ASCII).
//
// Beyond Java, it refuses a line whose key is empty or holds characters no
// Kafka setting has (such as a pasted JSON or YAML line), so that a broken
// file is reported instead of read as odd keys.
func parseProperties(text string) ([]property, error) {
	var out []property
	lines := splitLines(text)
	for i := 0; i < len(lines); i++ {
		first := i + 1
		line := trimLeft(lines[i])
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// join continuation lines
		for endsWithContinuation(line) && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + trimLeft(lines[i])
		}
		if endsWithContinuation(line) { // a backslash at the very end of the file
			line = line[:len(line)-1]
		}
		rawKey, rawValue, bare := splitKeyValue(line)
		key, err := unescape(rawKey)
		if err != nil {
			return nil, &syntaxError{line: first, msgKey: keyBadEscape}
		}
		if key == "" {
			return nil, &syntaxError{line: first, msgKey: keyValueWithoutKey}
		}
		if !validKey(key) {
			// not echoed: a stray line may be a password
			return nil, &syntaxError{line: first, msgKey: keyMalformedLine}
		}
		value, err := unescape(rawValue)
		if err != nil {
			return nil, &syntaxError{line: first, key: key, msgKey: keyBadEscape}
		}
		out = append(out, property{key: key, value: value, line: first, bare: bare})
	}
	return out, nil
}

// splitLines splits at \n, \r and \r\n, as Java's LineReader does.
func splitLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return strings.Split(text, "\n")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

func trimLeft(s string) string {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return s[i:]
}

// endsWithContinuation reports whether s ends in an odd number of backslashes.
func endsWithContinuation(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitKeyValue splits a logical line into its raw (still escaped) key and
// value; bare reports a line with no separator at all.
func splitKeyValue(line string) (key, value string, bare bool) {
	keyEnd := len(line)
	valueStart := len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++ // the next character is escaped
			continue
		}
		if c == '=' || c == ':' || isSpace(c) {
			keyEnd = i
			j := i
			for j < len(line) && isSpace(line[j]) {
				j++
			}
			if !isSpace(c) {
				j = i + 1
			} else if j < len(line) && (line[j] == '=' || line[j] == ':') {
				j++
			}
			for j < len(line) && isSpace(line[j]) {
				j++
			}
			valueStart = j
			break
		}
	}
	return line[:keyEnd], line[valueStart:], keyEnd == len(line)
}

// unescape applies java.util.Properties' escapes.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if len(s)-(i+1) < 4 {
				return "", fmt.Errorf(`malformed \uxxxx escape`)
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf(`malformed \uxxxx escape`)
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// validKey reports whether key could be a Kafka or librdkafka setting name.
func validKey(key string) bool {
	if c := key[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return false
	}
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
		default:
			return false
		}
	}
	return true
}
