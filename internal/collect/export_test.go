package collect

// AssignArm is assignArm, for the tests.
var AssignArm = assignArm
