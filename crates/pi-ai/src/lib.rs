//! The model layer: pi-ai's message types and event protocol, streams, the model registry and providers.

pub mod providers;
