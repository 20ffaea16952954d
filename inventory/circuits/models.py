# Models of this application arrive with their issues.
