from django.urls import path

from voyages.pages.views import voyage_report

urlpatterns = [path("voyage-assessments/<str:token>/report", voyage_report, name="voyage-report")]
