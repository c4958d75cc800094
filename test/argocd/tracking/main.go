// Command argocd-tracking says which live objects an Argo CD Application
// counts as its own, and which of them a sync would prune, with Argo CD's own
// code against a real API server: the cluster cache of gitops-engine (listing
// and watching the namespace), Argo CD's resource tracking
// (util/argo.ResourceTracking.GetAppName, v3.5.7) for each object, the cache's
// GetManagedLiveObjs and gitops-engine's sync.Reconcile of the Application's
// targets against them:
//
//	argocd-tracking < request.json > result.json
//
// request.json: {"server", "token", "caFile", "namespace", "application",
// "targets": [objects as the Application renders them, tracking metadata
// included], "methods": ["label", "annotation", ...]}. For each method the
// result holds what GetAppName says of every object in the namespace
// ("Kind/name" → application, "" for none), the objects the Application
// counts as its own, and those a sync would prune.
//
// Two small steps are Argo CD's application controller's, written out here as
// it does them (argo-cd v3.5.7 controller/cache/cache.go and controller/state.go):
// an object gets the application name only when it has no owner reference (a
// root), and a live object with no target is pruned only when its tracking
// annotation, if the method reads one, names that same object.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/cache"
	"github.com/argoproj/argo-cd/gitops-engine/pkg/sync"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
)

// Argo CD's default application instance label (argocd-cm application.instanceLabelKey).
const instanceLabelKey = "app.kubernetes.io/instance"

type request struct {
	Server      string                    `json:"server"`
	Token       string                    `json:"token"`
	CAFile      string                    `json:"caFile"`
	Namespace   string                    `json:"namespace"`
	Application string                    `json:"application"`
	Targets     []map[string]any          `json:"targets"`
	Methods     []v1alpha1.TrackingMethod `json:"methods"`
}

type methodResult struct {
	Method     string            `json:"method"`
	TrackingOf map[string]string `json:"trackingOf"`
	Managed    []string          `json:"managed"`
	Prune      []string          `json:"prune"`
}

// info is what the cache keeps of an object: what the tracking reads on it,
// and the application it belongs to (roots only, as Argo CD keeps it).
type info struct{ tracked, appName string }

func keyOf(kind, name string) string { return kind + "/" + name }

// selfReferenced: with a method that reads the tracking annotation, a live
// object is the Application's only when the annotation names that object.
func selfReferenced(live *unstructured.Unstructured, method v1alpha1.TrackingMethod) bool {
	if method == v1alpha1.TrackingMethodLabel {
		return true
	}
	value := argo.NewResourceTracking().GetAppInstance(live, method, "")
	if value == nil {
		return true
	}
	gvk := live.GroupVersionKind()
	return (value.Namespace == live.GetNamespace() || live.GetNamespace() == "") &&
		value.Name == live.GetName() && value.Group == gvk.Group && value.Kind == gvk.Kind
}

func track(config *rest.Config, req request, method v1alpha1.TrackingMethod) (methodResult, error) {
	tracking := argo.NewResourceTracking()
	result := methodResult{Method: string(method), TrackingOf: map[string]string{}}
	clusterCache := cache.NewClusterCache(config,
		cache.SetNamespaces([]string{req.Namespace}),
		cache.SetPopulateResourceInfoHandler(func(un *unstructured.Unstructured, isRoot bool) (any, bool) {
			appName := tracking.GetAppName(un, instanceLabelKey, method, "")
			res := &info{tracked: appName}
			if isRoot && appName != "" {
				res.appName = appName
			}
			return res, res.appName != ""
		}),
	)
	defer clusterCache.Invalidate()
	if err := clusterCache.EnsureSynced(); err != nil {
		return result, fmt.Errorf("syncing the cluster cache: %w", err)
	}
	for _, r := range clusterCache.FindResources(req.Namespace) {
		if r.Ref.Kind == "Event" {
			continue
		}
		if i, ok := r.Info.(*info); ok {
			result.TrackingOf[keyOf(r.Ref.Kind, r.Ref.Name)] = i.tracked
		}
	}
	targets := make([]*unstructured.Unstructured, 0, len(req.Targets))
	for _, t := range req.Targets {
		targets = append(targets, &unstructured.Unstructured{Object: t})
	}
	live, err := clusterCache.GetManagedLiveObjs(targets, func(r *cache.Resource) bool {
		i, ok := r.Info.(*info)
		return ok && i.appName == req.Application
	})
	if err != nil {
		return result, fmt.Errorf("GetManagedLiveObjs: %w", err)
	}
	for k := range live {
		result.Managed = append(result.Managed, keyOf(k.Kind, k.Name))
	}
	reconciled := sync.Reconcile(targets, live, req.Namespace, clusterCache)
	for i, target := range reconciled.Target {
		l := reconciled.Live[i]
		if target == nil && l != nil && selfReferenced(l, method) {
			result.Prune = append(result.Prune, keyOf(l.GetKind(), l.GetName()))
		}
	}
	sort.Strings(result.Managed)
	sort.Strings(result.Prune)
	if result.Managed == nil {
		result.Managed = []string{}
	}
	if result.Prune == nil {
		result.Prune = []string{}
	}
	return result, nil
}

func run() error {
	if len(os.Args) != 1 {
		return errors.New("usage: argocd-tracking < request.json")
	}
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	var req request
	if err := json.Unmarshal(in, &req); err != nil {
		return fmt.Errorf("stdin: %w", err)
	}
	config := &rest.Config{
		Host:            req.Server,
		BearerToken:     req.Token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: req.CAFile},
		QPS:             50,
		Burst:           100,
	}
	results := make([]methodResult, 0, len(req.Methods))
	for _, m := range req.Methods {
		r, err := track(config, req, m)
		if err != nil {
			return fmt.Errorf("%s tracking: %w", m, err)
		}
		results = append(results, r)
	}
	return json.NewEncoder(os.Stdout).Encode(results)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "argocd-tracking:", err)
		os.Exit(2)
	}
}
