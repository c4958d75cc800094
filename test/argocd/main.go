// Command argocd-health runs an Argo CD resource health check (Lua) the way
// Argo CD v3.5 does (util/lua/lua.go: runLua, ExecuteHealthLua), with the same
// Lua implementation (gopher-lua, Lua 5.1) and JSON encoder (gopher-json):
//
//	argocd-health SCRIPT.lua < objects.json > results.json
//
// stdin is a JSON array of Kubernetes objects; stdout is a JSON array with one
// result per object: {"status": ..., "message": ...} as Argo CD would report
// it, or {"error": ...} when Argo CD would fail the check.
//
// As in Argo CD: a fresh Lua state per object with only the package, base and
// table libraries (Argo CD's own restricted os library is left out: the
// script must not need it), a one-second timeout, the object as the global
// `obj` (integers as numbers, as the API server's JSON decodes to int64), the
// value the script returns encoded to JSON and read back as a health status;
// an unknown status code becomes Unknown.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"time"

	lua "github.com/yuin/gopher-lua"
	luajson "layeh.com/gopher-json"
)

type healthStatus struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
}

type result struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

// The health status codes of gitops-engine's pkg/health.
var validStatus = map[string]bool{
	"Unknown": true, "Progressing": true, "Suspended": true,
	"Healthy": true, "Degraded": true, "Missing": true,
}

// decodeValue is Argo CD's conversion of an unstructured object into Lua values.
func decodeValue(l *lua.LState, value any) lua.LValue {
	switch v := value.(type) {
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case []any:
		arr := l.CreateTable(len(v), 0)
		for _, item := range v {
			arr.Append(decodeValue(l, item))
		}
		return arr
	case map[string]any:
		tbl := l.CreateTable(0, len(v))
		for key, item := range v {
			tbl.RawSetH(lua.LString(key), decodeValue(l, item))
		}
		return tbl
	}
	return lua.LNil
}

// unstructuredNumbers turns json.Number into int64 or float64, as
// k8s.io/apimachinery's unstructured JSON decoding does.
func unstructuredNumbers(value any) any {
	switch v := value.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = unstructuredNumbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = unstructuredNumbers(v[k])
		}
	}
	return value
}

func openLibs(l *lua.LState) error {
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return err
		}
	}
	return nil
}

func executeHealthLua(obj any, script string) (healthStatus, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	if err := openLibs(l); err != nil {
		return healthStatus{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", decodeValue(l, obj))
	if err := l.DoString(script); err != nil {
		var apiErr *lua.ApiError
		if errors.As(err, &apiErr) && apiErr.Type == lua.ApiErrorRun {
			apiErr.StackTrace = ""
		}
		return healthStatus{}, err
	}
	ret := l.Get(-1)
	switch ret.Type() {
	case lua.LTNil:
		return healthStatus{}, nil
	case lua.LTTable:
		data, err := luajson.Encode(ret)
		if err != nil {
			return healthStatus{}, err
		}
		var hs healthStatus
		if err := json.Unmarshal(data, &hs); err != nil {
			// An empty table encodes as [], which Argo CD takes for an empty status.
			typeErr := &json.UnmarshalTypeError{Value: "array", Type: reflect.TypeFor[*healthStatus]()}
			if errors.As(err, &typeErr) {
				return healthStatus{}, nil
			}
			return healthStatus{}, err
		}
		if !validStatus[hs.Status] {
			return healthStatus{Status: "Unknown", Message: "Lua returned an invalid health status"}, nil
		}
		return hs, nil
	}
	return healthStatus{}, fmt.Errorf("expect table output from Lua script, not %s", ret.Type().String())
}

func run() error {
	if len(os.Args) != 2 {
		return errors.New("usage: argocd-health SCRIPT.lua < objects.json")
	}
	script, err := os.ReadFile(os.Args[1])
	if err != nil {
		return err
	}
	dec := json.NewDecoder(os.Stdin)
	dec.UseNumber()
	var objects []any
	if err := dec.Decode(&objects); err != nil {
		return fmt.Errorf("stdin: a JSON array of objects: %w", err)
	}
	results := make([]result, 0, len(objects))
	for _, obj := range objects {
		hs, err := executeHealthLua(unstructuredNumbers(obj), string(script))
		if err != nil {
			results = append(results, result{Error: err.Error()})
			continue
		}
		results = append(results, result{Status: hs.Status, Message: hs.Message})
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
		fmt.Fprintln(os.Stderr, "argocd-health:", err)
		os.Exit(2)
	}
}
