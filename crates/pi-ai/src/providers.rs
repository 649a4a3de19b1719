//! Provider adapters, one file per wire protocol.
