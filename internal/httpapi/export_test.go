package httpapi

// WebhookBytesHeld returns the unverified webhook bytes s holds now.
func WebhookBytesHeld(s *Server) int64 { return s.bodies.Held() }
