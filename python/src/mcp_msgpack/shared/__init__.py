"""What the client and the server sides share above the wire: messages as plain values, the native-bytes
extension at the edge, the stdio connection's state and the HTTP bodies' codec, media types and frame stream."""
