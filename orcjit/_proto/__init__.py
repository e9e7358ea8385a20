"""Protocol buffer messages of the ORC format, generated from proto/orc_proto.proto."""
