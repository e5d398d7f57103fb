// A module of its own, outside retrysim's, that imports it as any team
// would. TestExternalModule (external_test.go at the root) builds and tests
// it offline through a go.mod it derives from the root's (-modfile), so that
// it needs nothing the root module's cache does not hold; this file is what
// a reader would write, and `go mod tidy` here completes it online.
module example.com/ownjob

go 1.26.0

require github.com/retrysim/retrysim v0.0.0

replace github.com/retrysim/retrysim => ../..
