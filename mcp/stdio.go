package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// errLineTooLong marks a line that exceeded the message cap. The reader has
// already skipped the rest of it, so the stream stays usable.
var errLineTooLong = errors.New("message exceeds the size limit")

// lineReader splits a byte stream into messages, one per line. A line may
// end in LF or CRLF; the CR is not part of the payload and does not count
// toward the cap.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64*1024), max: max}
}

// next returns the next non-empty line without its line end. The slice is
// valid until the following call. At the end of the stream it returns
// io.EOF; a final line without a line end is still returned first. A line
// longer than the cap is consumed and reported as errLineTooLong.
func (lr *lineReader) next() ([]byte, error) {
	for {
		lr.buf = lr.buf[:0]
		tooLong := false
		var err error
		for {
			var chunk []byte
			chunk, err = lr.r.ReadSlice('\n')
			if !tooLong {
				lr.buf = append(lr.buf, chunk...)
				// The payload may be up to max bytes, plus CR LF.
				if len(lr.buf) > lr.max+2 {
					tooLong = true
					lr.buf = lr.buf[:0]
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if tooLong {
			return nil, errLineTooLong
		}
		line := bytes.TrimSuffix(lr.buf, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > lr.max {
			return nil, errLineTooLong
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if err == io.EOF {
				return nil, io.EOF
			}
			continue
		}
		return line, nil
	}
}

// lineWriter writes whole messages, one per line, from any goroutine.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lineWriter) write(msg []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	buf := make([]byte, 0, len(msg)+1)
	buf = append(buf, msg...)
	buf = append(buf, '\n')
	_, err := lw.w.Write(buf)
	return err
}

// notify writes a notification line.
func (lw *lineWriter) notify(msg []byte) error { return lw.write(msg) }

// respond writes a response line; over stdio, a request that gets no
// response (a cancelled one) leaves nothing to write.
func (lw *lineWriter) respond(msg []byte, identified bool) error {
	if msg == nil {
		return nil
	}
	return lw.write(msg)
}
