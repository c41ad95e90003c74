package postgres

// StopFolds stops s's folds of the queued viewers, so that a test sees
// them queued until it folds them itself.
func StopFolds(s *Store) {
	if s.stopFolds != nil {
		close(s.stopFolds)
		<-s.folded
		s.stopFolds = nil
	}
}
