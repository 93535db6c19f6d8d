package lspclient

import (
	"io"
	"os"
)

// newStdio makes gopls's standard streams of pipes. Windows has no path by
// which gopls could open its own streams as a file.
func newStdio() (*stdio, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	return &stdio{
		childIn: inR, childOut: outW, childErr: errW,
		out: outR, in: inW, closeIn: inW.Close, closers: []io.Closer{inW, outR},
		errR: errR,
	}, nil
}
