package api

import (
	"net/http"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// The query parameters the partition reads share: offsets, counts and
// windows, each refused with a sentence naming the parameter.

// offsetParam reads an optional offset query parameter; def when absent.
func offsetParam(r *http.Request, name string, def int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, problem.New(problem.Invalid, "error.offsetParam", "name", name, "value", v)
	}
	return n, nil
}

// intParam reads an optional whole-number query parameter.
func intParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, problem.New(problem.Invalid, "error.numberParam", "name", name, "value", v)
	}
	return n, nil
}

// rangeParams reads from and to: -1 (absent) means log start and high
// watermark.
func rangeParams(r *http.Request) (from, to int64, err error) {
	if from, err = offsetParam(r, "from", -1); err != nil {
		return
	}
	to, err = offsetParam(r, "to", -1)
	return
}

// windowParams reads from and limit; from defaults to the log start.
func windowParams(r *http.Request) (int64, int, error) {
	from := int64(-1)
	if v := r.URL.Query().Get("from"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, problem.New(problem.Invalid, "error.fromInvalid", "from", v)
		}
		from = n
	}
	limit := inspect.DefaultLimit
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, 0, problem.New(problem.Invalid, "error.limitInvalid", "limit", v)
		}
		limit = min(n, inspect.MaxLimit)
	}
	return from, limit, nil
}
