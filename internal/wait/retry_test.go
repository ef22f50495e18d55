package wait

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestDo(t *testing.T) {
	t.Parallel()
	permanent := errors.New("permanent")
	tests := []struct {
		name      string
		errs      []error
		wantCalls int
		wantErr   error
	}{
		{"success", []error{nil}, 1, nil},
		{"retriable then success", []error{kerr.CoordinatorNotAvailable, kerr.CoordinatorLoadInProgress, nil}, 3, nil},
		{"not retriable", []error{kerr.GroupAuthorizationFailed}, 1, kerr.GroupAuthorizationFailed},
		{"not kafka", []error{permanent}, 1, permanent},
	}
	for _, tt := range tests {
		calls := 0
		err := Retry(context.Background(), func() error {
			err := tt.errs[calls]
			calls++
			return err
		})
		if calls != tt.wantCalls || !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: %d calls, err %v; want %d calls, err %v", tt.name, calls, err, tt.wantCalls, tt.wantErr)
		}
	}
}
