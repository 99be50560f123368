// Package api is the generated Go code of registry.proto, the wire contract of OLM's catalog gRPC
// API (services api.Registry and api.ExperimentalRegistry).
//
// Regenerating needs protoc and the two plugins on PATH:
//
//	apt-get install -y protobuf-compiler
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@latest
//	go generate ./grpccompat/api
package api

//go:generate protoc --proto_path=. --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative registry.proto
