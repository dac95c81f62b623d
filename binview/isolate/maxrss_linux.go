package isolate

// maxrssUnit: Linux reports ru_maxrss in KiB.
const maxrssUnit = 1024
