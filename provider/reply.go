package provider

import "github.com/retrysim/retrysim/internal/enum"

// Reply is what the caller of one call saw: success, an error reply (the call did
// nothing), or no reply (a lost reply or a timeout: the call may have done its work).
type Reply int

const (
	// ReplyOK is a success: the call did its work and the caller knows it.
	ReplyOK Reply = iota
	// ReplyError is an error reply: the call failed and did nothing.
	ReplyError
	// NoReply is a call whose reply never came (lost, or timed out): its
	// work may have been done, and the caller cannot know.
	NoReply
)

var replies = enum.New[Reply]("reply", "ok", "error", "none")

// String names the reply: ok, error or none.
func (r Reply) String() string { return replies.String(r) }

// MarshalText is the reply's name.
func (r Reply) MarshalText() ([]byte, error) { return replies.MarshalText(r) }

// UnmarshalText reads a reply's name.
func (r *Reply) UnmarshalText(text []byte) error { return replies.UnmarshalText(text, r) }
