package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// MaxBodyBytes bounds every request body; a larger one is refused with 413.
const MaxBodyBytes = 4 << 20

// decodeJSON reads the body into v, a struct with json tags, with
// sentences a person can act on. A field v does not have is refused, so a
// misspelt "partiton" is not silently ignored.
func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		var syntax *json.SyntaxError
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &tooBig):
			return problem.New(problem.TooLarge, "error.bodyTooLarge", "max", strconv.Itoa(MaxBodyBytes))
		case errors.Is(err, io.EOF):
			return problem.New(problem.Invalid, "error.bodyEmpty")
		case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
			return problem.New(problem.Invalid, "error.bodyNotJSON", "detail", err.Error())
		case errors.As(err, &typeErr):
			return problem.New(problem.Invalid, "error.fieldType", "field", typeErr.Field, "type", typeErr.Type.Kind().String())
		}
		if field, ok := unknownField(r, v); ok {
			return problem.New(problem.Invalid, "error.unknownField", "field", field, "known", strings.Join(jsonFields(v), ", "))
		}
		return problem.New(problem.Invalid, "error.bodyUnreadable", "detail", err.Error())
	}
	if dec.More() {
		return problem.New(problem.Invalid, "error.bodySingleObject")
	}
	return nil
}

// unknownField finds the first top-level field of the body that v has no
// place for. The body was buffered by guardWrites (see bufferBody).
func unknownField(r *http.Request, v any) (string, bool) {
	raw, ok := bufferedBody(r)
	if !ok {
		return "", false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return "", false
	}
	known := jsonFields(v)
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if !slices.ContainsFunc(known, func(k string) bool { return strings.EqualFold(k, name) }) {
			return name, true
		}
	}
	return "", false
}

// jsonFields lists the JSON names of the fields of the struct v points to.
func jsonFields(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case name == "":
			out = append(out, f.Name)
		default:
			out = append(out, name)
		}
	}
	return out
}

// hasBody reports whether a request carries a body.
func hasBody(r *http.Request) bool {
	return r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
}

// bodyKey is the context key of a request body read by bufferBody.
type bodyKey struct{}

// bufferBody reads r's body (bounded by limitBody and the server's read
// timeout) and returns r with the body replaced by the bytes read, also
// kept for bufferedBody. A body that is too large or too slow is an error.
func bufferBody(r *http.Request) (*http.Request, error) {
	if !hasBody(r) {
		return r, nil
	}
	raw, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return r, problem.New(problem.TooLarge, "error.bodyTooLarge", "max", strconv.Itoa(MaxBodyBytes))
		}
		return r, problem.Wrap(err, problem.Invalid, "error.bodySlow", "detail", err.Error())
	}
	r = r.WithContext(context.WithValue(r.Context(), bodyKey{}, raw))
	r.Body = io.NopCloser(bytes.NewReader(raw))
	return r, nil
}

// bufferedBody is the body bufferBody read, if it did.
func bufferedBody(r *http.Request) ([]byte, bool) {
	raw, ok := r.Context().Value(bodyKey{}).([]byte)
	return raw, ok
}

// pathParam is a path parameter, decoded once: chi matches the escaped
// path, so "g%2F..%2Fx" names the group "g/../x".
func pathParam(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if r.URL.RawPath == "" {
		return v
	}
	if d, err := url.PathUnescape(v); err == nil {
		return d
	}
	return v
}

// partitionParams reads {topic} and {partition}.
func partitionParams(r *http.Request) (string, int32, error) {
	raw := pathParam(r, "partition")
	p, err := strconv.ParseInt(raw, 10, 32)
	if err != nil || p < 0 {
		return "", 0, problem.New(problem.Invalid, "error.partitionNotNumber", "partition", raw)
	}
	return pathParam(r, "topic"), int32(p), nil
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

// parseAcks accepts "0", "1", "all" (and -1, Kafka's spelling of all), as
// a string or a number.
func parseAcks(raw json.RawMessage) (producer.Acks, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return producer.AcksAll, nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		v = string(raw)
	}
	switch v {
	case "0":
		return producer.AcksNone, nil
	case "1":
		return producer.AcksLeader, nil
	case "all", "-1":
		return producer.AcksAll, nil
	}
	return "", problem.New(problem.Invalid, "error.acksInvalidRaw", "acks", string(raw))
}
