package handlers

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// maxBodySize caps the body of every POST endpoint.
const maxBodySize = 64 << 10

// readBody reads a POST body of at most maxBodySize bytes, of media type
// want when want is not empty. It writes the problem and returns ok false
// when the body is too large or of another type.
func readBody(w http.ResponseWriter, r *http.Request, rd *rendition, want string) (body []byte, ok bool) {
	if r.ContentLength > maxBodySize {
		writeProblem(w, r, newProblem(rd.base, codePayloadTooLarge, r, fmt.Sprintf("The body is %d bytes; this endpoint accepts at most %d.", r.ContentLength, maxBodySize)))
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodySize))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeProblem(w, r, newProblem(rd.base, codePayloadTooLarge, r, fmt.Sprintf("The body is larger than %d bytes.", maxBodySize)))
		return nil, false
	case err != nil:
		p := newProblem(rd.base, codeBadRequest, r, "The body could not be read completely.")
		writeProblem(w, r, p)
		return nil, false
	}
	if len(r.Header["Content-Type"]) > 1 {
		writeProblem(w, r, newProblem(rd.base, codeBadRequest, r, "The request has more than one Content-Type header."))
		return nil, false
	}
	if want != "" && (len(body) > 0 || r.Header.Get("Content-Type") != "") {
		mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mediaType != want {
			p := newProblem(rd.base, codeUnsupportedMediaType, r, "The body's Content-Type is "+quote(r.Header.Get("Content-Type"))+"; this endpoint accepts "+want+".")
			p.Hint = "Send the body as " + want + "."
			writeProblem(w, r, p)
			return nil, false
		}
	}
	return body, true
}
