"""Paper 000 (CDP-LR, DC-FBFS, publishing): its four pages, their shared cached work, panels and charts."""
