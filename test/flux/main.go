// Command flux-kstatus computes the health Flux gives a resource: kstatus
// (github.com/fluxcd/cli-utils/pkg/kstatus/status.Compute, the library Flux's
// kustomize-controller waits on with `wait: true` and `healthChecks`), at the
// version kustomize-controller v1.9.6 requires:
//
//	flux-kstatus < objects.json > results.json
//
// stdin is a JSON array of Kubernetes objects; stdout is a JSON array with one
// result per object: {"status": ..., "message": ...} as kstatus computes it
// (Current, InProgress, Failed, Terminating, Unknown), or {"error": ...}.
// Objects are decoded as the API server's JSON is by client-go (integers as
// int64), since kstatus reads metadata.generation and status.observedGeneration
// as integers.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

type result struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

func run() error {
	if len(os.Args) != 1 {
		return errors.New("usage: flux-kstatus < objects.json")
	}
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	var objects []map[string]any
	if err := utiljson.Unmarshal(in, &objects); err != nil {
		return fmt.Errorf("stdin: a JSON array of objects: %w", err)
	}
	results := make([]result, 0, len(objects))
	for _, obj := range objects {
		res, err := status.Compute(&unstructured.Unstructured{Object: obj})
		if err != nil {
			results = append(results, result{Error: err.Error()})
			continue
		}
		results = append(results, result{Status: res.Status.String(), Message: res.Message})
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(results); err != nil {
		return err
	}
	_, err = os.Stdout.Write(out.Bytes())
	return err
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "flux-kstatus:", err)
		os.Exit(2)
	}
}
