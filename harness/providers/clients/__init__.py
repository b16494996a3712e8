"""One client per wire format, and the wire-neutral rows, images and tool schemas they share."""
