"""The build from a lab to its data: run the lab (nbclient), check the claims, validate, write data/<id>/."""
