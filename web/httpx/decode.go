package httpx

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

	"github.com/offsetlab/offsetlab/internal/problem"
)

// MaxBodyBytes bounds every request body; a larger one is refused with 413.
const MaxBodyBytes = 4 << 20

// DecodeJSON reads the body into v, a struct with json tags, with
// sentences a person can act on. A field v does not have is refused, so a
// misspelt "partiton" is not silently ignored.
func DecodeJSON(r *http.Request, v any) error {
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
// place for. The body was buffered by guardWrites (see BufferBody).
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

// HasBody reports whether a request carries a body.
func HasBody(r *http.Request) bool {
	return r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
}

// bodyKey is the context key of a request body read by BufferBody.
type bodyKey struct{}

// BufferBody reads r's body (bounded by limitBody and the server's read
// timeout) and returns r with the body replaced by the bytes read, also
// kept for bufferedBody. A body that is too large or too slow is an error.
func BufferBody(r *http.Request) (*http.Request, error) {
	if !HasBody(r) {
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

// bufferedBody is the body BufferBody read, if it did.
func bufferedBody(r *http.Request) ([]byte, bool) {
	raw, ok := r.Context().Value(bodyKey{}).([]byte)
	return raw, ok
}

// PathParam is a path parameter, decoded once: chi matches the escaped
// path, so "g%2F..%2Fx" names the group "g/../x".
func PathParam(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if r.URL.RawPath == "" {
		return v
	}
	if d, err := url.PathUnescape(v); err == nil {
		return d
	}
	return v
}

// PartitionParams reads {topic} and {partition}.
func PartitionParams(r *http.Request) (string, int32, error) {
	raw := PathParam(r, "partition")
	p, err := strconv.ParseInt(raw, 10, 32)
	if err != nil || p < 0 {
		return "", 0, problem.New(problem.Invalid, "error.partitionNotNumber", "partition", raw)
	}
	return PathParam(r, "topic"), int32(p), nil
}
