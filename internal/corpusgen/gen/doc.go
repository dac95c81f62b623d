// Package gen generates a synthetic text corpus for evaluating and
// benchmarking the secret scanner: source code, configuration and log
// files with planted credentials of known formats (random values with
// valid shapes and checksums, generated here, never taken from a data
// set) and planted decoys (placeholders, documentation keys, hashes,
// UUIDs, version strings, variable references), plus the ground truth of
// every planted line.
//
// Output is a pure function of the seed and size.
package gen
