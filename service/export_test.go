package service

import "time"

// Sweep runs the idle sweep as if the time were now.
func Sweep(s *Server, now time.Time) { s.sweep(now) }
