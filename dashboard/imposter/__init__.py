"""Paper 002 (IMPOSTER): its page, training jobs, cached work and charts."""
