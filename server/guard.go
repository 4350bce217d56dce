package server

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// guard wraps every HTTP endpoint: request id, Host and Origin checks against DNS rebinding,
// the bearer token, and an access log line.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := s.ids.next()
		w.Header().Set("X-Request-Id", id)
		r = r.WithContext(withRequestID(r.Context(), id))
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			s.log.Debug("http request", "request_id", id, "method", r.Method, "path", r.URL.Path,
				"status", sw.status, "duration_ms", float64(time.Since(start).Microseconds())/1000,
				"remote", r.RemoteAddr)
		}()
		if !s.hostAllowed(r.Host) {
			writeJSON(sw, http.StatusForbidden, map[string]string{
				"error": "forbidden: Host " + quote(r.Host) + " is not an allowed host (DNS rebinding protection; see --allowed-hosts)"})
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			if !s.originAllowed(o) {
				writeJSON(sw, http.StatusForbidden, map[string]string{
					"error": "forbidden: Origin " + quote(o) + " is not allowed (see --allowed-origins)"})
				return
			}
			// An allowed browser origin (an inspector's web UI, say) may read the answers.
			h := sw.Header()
			h.Set("Access-Control-Allow-Origin", o)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, X-Request-Id, WWW-Authenticate")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				// CORS preflight: browsers send it without credentials, so it precedes the token check.
				h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID")
				h.Set("Access-Control-Max-Age", "600")
				sw.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if s.authToken != "" && !(r.Method == http.MethodGet && r.URL.Path == "/health") && !s.authorized(r) {
			sw.Header().Set("WWW-Authenticate", `Bearer realm="mcp-pruner"`)
			writeJSON(sw, http.StatusUnauthorized, map[string]string{"error": "unauthorized: send Authorization: Bearer <token>"})
			return
		}
		next.ServeHTTP(sw, r)
	})
}

func quote(s string) string { return "\"" + strings.ReplaceAll(s, "\"", "\\\"") + "\"" }

func (s *Server) authorized(r *http.Request) bool {
	// The scheme is case-insensitive (RFC 9110 §11.1): "bearer x" is "Bearer x".
	h := r.Header.Get("Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "Bearer ") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(h[7:])), []byte(s.authToken)) == 1
}

func (s *Server) hostAllowed(hostport string) bool {
	if s.anyHost {
		return true
	}
	if hostport == "" {
		return false // HTTP/1.1 requires Host; an empty one is not a browser we can trust
	}
	return s.hosts[normHost(hostport)]
}

func (s *Server) originAllowed(origin string) bool {
	if s.anyOrigin || s.origins[normOrigin(origin)] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // includes the opaque "null" origin
	}
	return s.hosts[normHost(u.Host)]
}

// normHost lower-cases a host and strips its port and IPv6 brackets.
func normHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}

func normOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}

// statusWriter records the status for the access log. It forwards Flush so the MCP SDK's
// event streams still work through it.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
