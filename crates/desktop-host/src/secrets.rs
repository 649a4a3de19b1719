//! API keys in the OS keychain, with an explicit, confirmed file fallback where no keychain service exists.
