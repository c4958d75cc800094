// Command etcd is the etcd server, built from the same module graph as
// kube-apiserver so that the pair always matches (see ../../README.md).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
