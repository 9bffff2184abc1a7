package server

// ServeNoopForBench lets TestMain turn the test binary into BenchmarkPeerOverhead's server.
var ServeNoopForBench = serveNoop

// PeerServeEnv names the variable that asks for it.
const PeerServeEnv = peerServeEnv
