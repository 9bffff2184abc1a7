package serving

import (
	"context"

	"github.com/trtmc-qual/trtmc-qual/containers/trtmcserver"
)

// PeerRoute is the one route server/peerbench/peer.py answers.
const PeerRoute = "/v1/audio/transcriptions"

// StartPeer starts server/peerbench/peer.py (host path peerPy) on n as the server: the
// transcription route around a no-op Task, so a client measured against it shows the harness's
// own ceiling. It runs in the AIPerf image, whose Python has FastAPI and uvicorn.
func (n *Network) StartPeer(ctx context.Context, aiperfImage, peerPy string) (*Server, error) {
	ctr, err := trtmcserver.Run(ctx, aiperfImage, trtmcserver.WithNetwork(n.nw, Alias), trtmcserver.WithFile(peerPy, "/peer/peer.py"),
		trtmcserver.WithEntrypoint("/opt/aiperf/bin/python"), // the venv containers/images installs AIPerf into
		trtmcserver.WithCommand("-m", "uvicorn", "peer:app", "--app-dir", "/peer", "--host", "0.0.0.0", "--port", "8000", "--log-level", "warning"))
	if ctr == nil {
		return nil, err
	}
	return &Server{ctr}, err
}
