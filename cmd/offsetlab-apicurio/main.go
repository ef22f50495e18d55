// Command offsetlab-apicurio runs Apicurio Registry 3.0.9, a Schema
// Registry nobody here wrote, on this machine without Docker (see
// internal/apicurio):
//
//	go run ./cmd/offsetlab-apicurio fetch   # the application, into the cache (once, 104 MiB)
//	go run ./cmd/offsetlab-apicurio run     # prints its Confluent-compatible URL; Ctrl-C stops it
//
// Point the dashboard at the URL run prints: --schema-registry URL. The
// registry keeps its schemas in memory: they are gone when it stops.
//
// Environment: OFFSETLAB_APICURIO_DIR, else
// $OFFSETLAB_CACHE/apicurio-registry-3.0.9, else
// ./.cache/apicurio-registry-3.0.9; JAVA_HOME (else java on PATH), Java
// 17 or later.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/offsetlab/offsetlab/cmd/internal/download"
	"github.com/offsetlab/offsetlab/internal/apicurio"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: offsetlab-apicurio fetch
       offsetlab-apicurio run`

// run carries out one command and returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "offsetlab-apicurio:", err)
		return 1
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	dir := apicurio.DefaultDir(getenv, cwd)
	log := slog.New(slog.NewTextHandler(stderr, nil))
	switch {
	case len(args) == 1 && args[0] == "fetch":
		if err := apicurio.Fetch(ctx, dir, download.Get, log); err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, dir)
		return 0
	case len(args) == 1 && args[0] == "run":
		java := ""
		if home := getenv("JAVA_HOME"); home != "" {
			java = filepath.Join(home, "bin", "java")
		}
		reg, err := apicurio.Start(ctx, apicurio.Config{Dir: dir, Java: java, Get: download.Get})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, reg.URL())
		<-ctx.Done()
		if err := reg.Close(); err != nil {
			return fail(err)
		}
		return 0
	}
	fmt.Fprintln(stderr, usage)
	return 2
}
