package bridge

// SetBeforeWrite makes b run f after it has prepared the files of an
// apply and before it checks them, so that a test can change a file in
// that window without waiting on time.
func SetBeforeWrite(b *Bridge, f func()) { b.beforeWrite = f }
