package api

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// params reads a request's query parameters: the one parser of the API.
// Each kind of parameter has one reader and one refusal, problem.Invalid
// (400) with a catalogue sentence naming the parameter and the value it
// got:
//
//	offset     a Kafka offset, 0 or more              error.offsetParam {name, value}
//	number     a whole number, 0 or more              error.numberParam {name, value}
//	count      a whole number, 1 or more              error.countParam {name, value}
//	timestamp  milliseconds since 1970 (required)     error.timestampParam {name, value}
//	isolation  read_committed or read_uncommitted     error.isolationInvalid {isolation}
//	flag       true when it is "true"                 (never refused)
//
// An absent (or empty) parameter takes the default the handler gives.
// A handler that takes a new parameter reads it here, of an existing
// kind where it is one.
type params struct{ q url.Values }

// paramsOf is r's query parameters.
func paramsOf(r *http.Request) params { return params{r.URL.Query()} }

// text is the parameter as sent; "" when absent.
func (p params) text(name string) string { return p.q.Get(name) }

// flag is true when the parameter is "true".
func (p params) flag(name string) bool { return p.q.Get(name) == "true" }

// offset reads an offset; def when absent.
func (p params) offset(name string, def int64) (int64, error) {
	v := p.q.Get(name)
	if v == "" {
		return def, nil
	}
	return offsetValue(name, v)
}

// offsetValue reads raw as an offset named name (a query or a path
// parameter).
func offsetValue(name, raw string) (int64, error) {
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		return 0, problem.New(problem.Invalid, "error.offsetParam", "name", name, "value", raw)
	}
	return n, nil
}

// number reads a whole number, 0 or more; def when absent.
func (p params) number(name string, def int) (int, error) {
	v := p.q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, problem.New(problem.Invalid, "error.numberParam", "name", name, "value", v)
	}
	return n, nil
}

// count reads a whole number, 1 or more, at most most; def when absent.
func (p params) count(name string, def, most int) (int, error) {
	v := p.q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, problem.New(problem.Invalid, "error.countParam", "name", name, "value", v)
	}
	return min(n, most), nil
}

// timestamp reads a required time in milliseconds since 1970.
func (p params) timestamp(name string) (int64, error) {
	v := p.q.Get(name)
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, problem.New(problem.Invalid, "error.timestampParam", "name", name, "value", v)
	}
	return ms, nil
}

// isolation reads an isolation level; read_committed when absent.
func (p params) isolation(name string) (inspect.Isolation, error) {
	iso := inspect.Isolation(p.q.Get(name))
	if iso == "" {
		return inspect.ReadCommitted, nil
	}
	if !iso.Valid() {
		return "", problem.New(problem.Invalid, "error.isolationInvalid", "isolation", string(iso))
	}
	return iso, nil
}

// offsetRange reads from and to: -1 (absent) means the log start and the
// high watermark.
func (p params) offsetRange() (from, to int64, err error) {
	if from, err = p.offset("from", -1); err != nil {
		return 0, 0, err
	}
	to, err = p.offset("to", -1)
	return from, to, err
}

// window reads from and limit of a window read: from defaults to the log
// start, limit to inspect.DefaultLimit and is at most inspect.MaxLimit.
func (p params) window() (from int64, limit int, err error) {
	if from, err = p.offset("from", -1); err != nil {
		return 0, 0, err
	}
	limit, err = p.count("limit", inspect.DefaultLimit, inspect.MaxLimit)
	return from, limit, err
}
