// Package download is the one HTTP GET the commands hand to
// internal/localkafka to fetch the Kafka jars from Maven Central (a
// localkafka.Getter) and to internal/apicurio to fetch Apicurio Registry
// and ask whether it serves (an apicurio.Getter). It lives under cmd/
// because it speaks net/http, which the packages under internal/ never
// import; only cmd/server, cmd/offsetlab-kafka and cmd/offsetlab-apicurio
// use it.
package download

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// Get fetches url with http.DefaultClient and returns its body, which the
// caller must close. Any answer other than 200 is an error carrying the
// status line (its body is closed here), so a missing jar reads "404 Not
// Found" rather than being saved as a page of HTML.
func Get(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%s", resp.Status)
	}
	return resp.Body, nil
}
