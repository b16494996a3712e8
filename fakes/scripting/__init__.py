"""What a fake answers, call by call: scripts, following the conversation, planned usage."""
