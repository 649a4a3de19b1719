//! The agent runtime: the Agent, the agent loop, tools and events.
