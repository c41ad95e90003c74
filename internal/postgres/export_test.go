package postgres

// StopFolds stops s's folds of the queued viewers, so that a test sees
// them queued until it folds them itself.
var StopFolds = (*Store).stopFolding
