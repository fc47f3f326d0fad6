package server

import (
	"strings"
)

// CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO: client-side
// caching's commands (tracking.go has the tracking itself). The checks and
// their texts are Redis 7.0's clientCommand's, in its order.

const (
	errTrackingRedirectTwice replyError = "ERR A client can only redirect to a single other client"
	errTrackingRedirectNone  replyError = "ERR The client ID you want redirect to does not exist"
	errTrackingPrefixNoBcast replyError = "ERR PREFIX option requires BCAST mode to be enabled"
	errTrackingBcastSwitch   replyError = "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."
	errTrackingBcastOpt      replyError = "ERR OPTIN and OPTOUT are not compatible with BCAST"
	errTrackingOptinOptout   replyError = "ERR You can't specify both OPTIN mode and OPTOUT mode"
	errTrackingOptSwitch     replyError = "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode."
	errCachingNotTracking    replyError = "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled"
	errCachingYesNeedsOptin  replyError = "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."
	errCachingNoNeedsOptout  replyError = "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."
)

// errPrefixOverlap is the refusal of BCAST prefix p, which overlaps with
// other: one of the client's prefixes (existing) or another of the
// command's. Redis formats them with %s, which stops at a NUL byte.
func errPrefixOverlap(p, other string, existing bool) replyError {
	which := "another provided"
	if existing {
		which = "an existing"
	}
	return replyError("ERR Prefix '" + cString(p) + "' overlaps with " + which + " prefix '" + cString(other) +
		"'. Prefixes for a single client must not overlap.")
}

// cString is s as C's %s prints it: up to its first NUL byte.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// overlaps reports whether one of a and b is a prefix of the other.
func overlaps(a, b string) bool {
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// CLIENT TRACKING ON|OFF [REDIRECT client-id] [PREFIX prefix ...] [BCAST]
// [OPTIN] [OPTOUT] [NOLOOP]
func cmdClientTracking(c *Ctx, args [][]byte) error {
	var (
		redirect int64
		mode     trackFlag
		prefixes []string
	)
	for j := 3; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case is(args[j], "redirect") && more:
			j++
			if redirect != 0 {
				return errTrackingRedirectTwice
			}
			id, err := parseInt(args[j])
			if err != nil {
				return err
			}
			// Redis checks that the client exists now only: it may
			// leave later, which breaks the redirection.
			if c.Srv.clientByID(id) == nil {
				return errTrackingRedirectNone
			}
			redirect = id
		case is(args[j], "bcast"):
			mode |= trackBcast
		case is(args[j], "optin"):
			mode |= trackOptin
		case is(args[j], "optout"):
			mode |= trackOptout
		case is(args[j], "noloop"):
			mode |= trackNoloop
		case is(args[j], "prefix") && more:
			j++
			prefixes = append(prefixes, string(args[j]))
		default:
			return errSyntax
		}
	}
	cl := c.Client
	switch {
	case is(args[2], "on"):
		if err := c.Srv.trackingOptionsError(cl, mode, prefixes); err != "" {
			return err
		}
		c.Srv.trackingOn(cl, mode, redirect, prefixes)
	case is(args[2], "off"):
		c.Srv.trackingOff(cl)
	default:
		return errSyntax
	}
	c.Reply().OK()
	return nil
}

// trackingOptionsError is the refusal of CLIENT TRACKING ON with mode and
// prefixes by cl, in its present mode, or "".
func (s *Server) trackingOptionsError(cl *Client, mode trackFlag, prefixes []string) replyError {
	now := trackFlag(cl.trk.flags.Load())
	switch {
	case mode&trackBcast == 0 && len(prefixes) > 0:
		return errTrackingPrefixNoBcast
	case now&trackOn != 0 && now&trackBcast != mode&trackBcast:
		return errTrackingBcastSwitch
	case mode&trackBcast != 0 && mode&(trackOptin|trackOptout) != 0:
		return errTrackingBcastOpt
	case mode&trackOptin != 0 && mode&trackOptout != 0:
		return errTrackingOptinOptout
	case mode&trackOptin != 0 && now&trackOptout != 0, mode&trackOptout != 0 && now&trackOptin != 0:
		return errTrackingOptSwitch
	}
	if mode&trackBcast == 0 {
		return ""
	}
	// Each new prefix against the client's (the server's tracking.mu
	// guards them), then against the command's later ones.
	tt := &s.tracking
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for i, p := range prefixes {
		for _, have := range cl.trk.prefixes {
			if overlaps(p, have) {
				return errPrefixOverlap(p, have, true)
			}
		}
		for _, q := range prefixes[i+1:] {
			if overlaps(p, q) {
				return errPrefixOverlap(p, q, false)
			}
		}
	}
	return ""
}

// CLIENT CACHING YES|NO: track, or do not, the keys of the next command,
// in OPTIN or OPTOUT mode.
func cmdClientCaching(c *Ctx, args [][]byte) error {
	t := &c.Client.trk
	if !t.has(trackOn) {
		return errCachingNotTracking
	}
	switch {
	case is(args[2], "yes"):
		if !t.has(trackOptin) {
			return errCachingYesNeedsOptin
		}
	case is(args[2], "no"):
		if !t.has(trackOptout) {
			return errCachingNoNeedsOptout
		}
	default:
		return errSyntax
	}
	t.set(trackCaching)
	c.Reply().OK()
	return nil
}

// CLIENT GETREDIR: the client the invalidations go to, 0 for none, -1
// when tracking is off.
func cmdClientGetRedir(c *Ctx, _ [][]byte) error {
	c.Reply().Int(c.Client.trk.redirectReply())
	return nil
}

// redirectReply is GETREDIR's and TRACKINGINFO's redirect: the redirect
// client's id, 0 for none, -1 when tracking is off.
func (t *clientTracking) redirectReply() int64 {
	if !t.has(trackOn) {
		return -1
	}
	return t.redirect.Load()
}

// CLIENT TRACKINGINFO: a map of the client's tracking flags (a set), its
// redirection and its BCAST prefixes, as Redis 7.0 answers.
func cmdClientTrackingInfo(c *Ctx, _ [][]byte) error {
	t := &c.Client.trk
	f := trackFlag(t.flags.Load())
	flags := []string{"off"}
	if f&trackOn != 0 {
		flags[0] = "on"
	}
	for _, fl := range []struct {
		flag trackFlag
		name string
	}{{trackBcast, "bcast"}, {trackOptin, "optin"}, {trackOptout, "optout"}, {trackNoloop, "noloop"}, {trackBrokenRedir, "broken_redirect"}} {
		if f&fl.flag == 0 {
			continue
		}
		flags = append(flags, fl.name)
		switch {
		case fl.flag == trackOptin && f&trackCaching != 0:
			flags = append(flags, "caching-yes")
		case fl.flag == trackOptout && f&trackCaching != 0:
			flags = append(flags, "caching-no")
		}
	}
	tt := &c.Srv.tracking
	tt.mu.Lock()
	prefixes := append([]string(nil), t.prefixes...)
	tt.mu.Unlock()
	r := c.Reply()
	r.Map(3)
	r.BulkString("flags")
	r.Set(len(flags))
	for _, fl := range flags {
		r.BulkString(fl)
	}
	r.BulkString("redirect")
	r.Int(t.redirectReply())
	r.BulkString("prefixes")
	r.Array(len(prefixes))
	for _, p := range prefixes {
		r.BulkString(p)
	}
	return nil
}
