module llsd-hook.local/test/argocd

go 1.26.0

require (
	github.com/yuin/gopher-lua v1.1.2
	layeh.com/gopher-json v0.0.0-20190114024228-97fed8db8427
)
