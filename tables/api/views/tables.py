"""Reading tables: the list a user may read, and one table as it stands now."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.schema import ApiSchema
from core.types import request_staff
from tables.api import outputs
from tables.api.read_models import table_data, table_summary_data
from tables.api.views.base import ApiView, table_get
from tables.models import Table
from tables.permissions import check_can_read_table
from tables.selectors import tables_readable


class TableListView(GenericAPIView):
    """The tables you may read: all of them for pit bosses and accountants, for a croupier those he
    is assigned to now."""

    schema = ApiSchema()
    serializer_class = outputs.TableSummaryOut

    def get_queryset(self) -> QuerySet[Table]:
        return tables_readable(user=request_staff(self.request))

    @extend_schema(responses=outputs.TableSummaryOut(many=True), operation_id="tables_list")
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None
        return self.get_paginated_response([table_summary_data(t) for t in page])


class TableDetailView(ApiView):
    """The table now: session, seats, spectators, open shoe, bank (or its rotation), current coup."""

    @extend_schema(
        responses={200: outputs.TableOut, 403: outputs.ErrorOut, 404: outputs.ErrorOut},
        operation_id="tables_read",
    )
    def get(self, request: Request, table_id: int) -> Response:
        table = table_get(table_id)
        check_can_read_table(request.user, table)
        return Response(table_data(table))
