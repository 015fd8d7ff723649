// Placeholder until the backend lands.
