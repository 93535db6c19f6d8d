// Package decl owns Go declarations as a model is shown them: read from
// parsed files (Files parses each file once per call, in the text its
// caller says is current; File converts between token positions and
// 0-based lines and UTF-16 columns), found by the position of their name
// (File.At) and rendered one line each, without body or comments, with
// their doc comment beside (Info, from File.Func, File.Type and
// File.Value). go_file_context and go_package_api list declarations this
// way; go_source finds the span of one in a File, from its doc comment
// (DocStart) to its line comment (LineEnd).
//
// Imports: memo (the lines of a text), place (UTF-16 columns) and symbol
// (receivers and member lists); besides, the standard library. What it needs of gopls and the read gate, the current
// text of a file, its caller passes in (Options).
package decl
