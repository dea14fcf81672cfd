// ferrobase's administration extension to HBase's Thrift1 service (crates/gateway/src/handler/admin.rs).
exception IOError {
  1: string message
}

exception IllegalArgument {
  1: string message
}

service FerrobaseAdmin {
  void ferrobaseAdmin(1: binary op, 2: binary table, 3: binary key, 4: map<binary, binary> attributes)
    throws (1: IOError io, 2: IllegalArgument ia)
}
