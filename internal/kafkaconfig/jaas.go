package kafkaconfig

import (
	"errors"
	"strings"
)

// jaasEntry is the one login module a sasl.jaas.config value names.
type jaasEntry struct {
	module  string
	flag    string
	options map[string]string
	order   []string // option names in the order written
}

// parseJAAS reads "<LoginModule> <flag> [name=value ...];" as Kafka's
// JaasConfig does: values bare or in double or single quotes (with
// backslash escapes), exactly one module, a closing ';'. Errors describe
// the shape only and never quote a value.
func parseJAAS(s string) (*jaasEntry, error) {
	toks, err := jaasTokens(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, errors.New("it is empty")
	}
	word := func(i int) (string, bool) {
		if i < len(toks) && toks[i].kind == tokWord {
			return toks[i].text, true
		}
		return "", false
	}
	module, ok := word(0)
	if !ok {
		return nil, errors.New("it must start with a login module class name")
	}
	flag, ok := word(1)
	if !ok {
		return nil, errors.New("the login module must be followed by required, requisite, sufficient or optional")
	}
	switch strings.ToLower(flag) {
	case "required", "requisite", "sufficient", "optional":
	default:
		return nil, errors.New("the login module must be followed by required, requisite, sufficient or optional")
	}
	e := &jaasEntry{module: module, flag: strings.ToLower(flag), options: map[string]string{}}
	i := 2
	for ; i < len(toks) && toks[i].kind != tokSemicolon; i += 3 {
		name, ok := word(i)
		if !ok {
			return nil, errors.New("an option name is missing")
		}
		if i+1 >= len(toks) || toks[i+1].kind != tokEquals {
			return nil, errors.New("option " + name + " has no =value")
		}
		if i+2 >= len(toks) || (toks[i+2].kind != tokWord && toks[i+2].kind != tokQuoted) {
			return nil, errors.New("option " + name + " has no value")
		}
		if _, dup := e.options[name]; dup {
			return nil, errors.New("option " + name + " is given twice")
		}
		e.options[name] = toks[i+2].text
		e.order = append(e.order, name)
	}
	if i >= len(toks) {
		return nil, errors.New("it must end with ';'")
	}
	if i+1 < len(toks) {
		return nil, errors.New("it holds more than one login module; Kafka takes exactly one")
	}
	return e, nil
}

type tokKind int

const (
	tokWord tokKind = iota
	tokQuoted
	tokEquals
	tokSemicolon
)

type token struct {
	kind tokKind
	text string
}

func jaasTokens(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '=':
			toks = append(toks, token{kind: tokEquals})
			i++
		case c == ';':
			toks = append(toks, token{kind: tokSemicolon})
			i++
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(s) {
				d := s[j]
				if d == c {
					closed = true
					j++
					break
				}
				if d == '\\' && j+1 < len(s) {
					j++
					switch s[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case 'r':
						b.WriteByte('\r')
					case 'b':
						b.WriteByte('\b')
					case 'f':
						b.WriteByte('\f')
					default:
						b.WriteByte(s[j])
					}
					j++
					continue
				}
				b.WriteByte(d)
				j++
			}
			if !closed {
				return nil, errors.New("a quoted value is not closed")
			}
			toks = append(toks, token{kind: tokQuoted, text: b.String()})
			i = j
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r\f=;\"'", rune(s[j])) {
				j++
			}
			toks = append(toks, token{kind: tokWord, text: s[i:j]})
			i = j
		}
	}
	return toks, nil
}
