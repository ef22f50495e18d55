package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/embedded"
)

// budgetFlags registers the embedded broker's data budget (see
// embedded.DataBudget) and returns the function that reads it after Parse.
func budgetFlags(fs *flag.FlagSet, env func(key, def string) string) func() (embedded.DataBudget, error) {
	maxBytes := fs.String("embedded-max-bytes", env("OFFSETLAB_EMBEDDED_MAX_BYTES", "256MiB"),
		"embedded broker: the data budget — segment bytes plus 103 bytes per stored batch (its index entries on disk and in memory); writes past it are refused with POLICY_VIOLATION, nothing is deleted; a size such as 256MiB or 2GiB, or none [OFFSETLAB_EMBEDDED_MAX_BYTES]")
	clientMax := fs.String("embedded-client-max-bytes", env("OFFSETLAB_EMBEDDED_CLIENT_MAX_BYTES", ""),
		"embedded broker: the share of the data budget one client host other than this one may use; empty is an eighth of --embedded-max-bytes [OFFSETLAB_EMBEDDED_CLIENT_MAX_BYTES]")
	studentMax := fs.String("embedded-student-max-bytes", env("OFFSETLAB_EMBEDDED_STUDENT_MAX_BYTES", ""),
		"embedded broker: the share of the data budget one classroom student may use, by Kafka identity (what is stored in their student-<name>- topics), whatever addresses they write from; empty is a sixteenth of --embedded-max-bytes [OFFSETLAB_EMBEDDED_STUDENT_MAX_BYTES]")
	return func() (embedded.DataBudget, error) {
		var b embedded.DataBudget
		var errs []error
		if strings.EqualFold(strings.TrimSpace(*maxBytes), "none") {
			b.MaxBytes = -1
		} else if n, err := parseSize(*maxBytes); err != nil {
			errs = append(errs, fmt.Errorf("--embedded-max-bytes %q: %w", *maxBytes, err))
		} else {
			b.MaxBytes = n
		}
		if strings.TrimSpace(*clientMax) != "" {
			if n, err := parseSize(*clientMax); err != nil {
				errs = append(errs, fmt.Errorf("--embedded-client-max-bytes %q: %w", *clientMax, err))
			} else {
				b.ClientMaxBytes = n
			}
		}
		if strings.TrimSpace(*studentMax) != "" {
			if n, err := parseSize(*studentMax); err != nil {
				errs = append(errs, fmt.Errorf("--embedded-student-max-bytes %q: %w", *studentMax, err))
			} else {
				b.StudentMaxBytes = n
			}
		}
		return b, errors.Join(errs...)
	}
}

// sizeUnits are the suffixes parseSize takes, longest first.
var sizeUnits = []struct {
	suffix string
	bytes  int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
}

// parseSize reads a positive byte count: a whole number, optionally with
// one of sizeUnits.
func parseSize(v string) (int64, error) {
	v = strings.TrimSpace(v)
	unit := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(v, u.suffix) {
			v, unit = strings.TrimSpace(strings.TrimSuffix(v, u.suffix)), u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/unit {
		return 0, errors.New("want a positive size such as 256MiB, 2GiB or 1000000")
	}
	return n * unit, nil
}
