from django.http import HttpResponseRedirect
from django.urls import include, path

urlpatterns = [
    path("", lambda request: HttpResponseRedirect("/api/")),
    path("api/", include("rest.urls")),
]
