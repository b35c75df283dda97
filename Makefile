# Comenzile cursului. Pe o mașină nouă ajung două:
#   make lab    — pregătește mediul (dacă e nevoie) și deschide JupyterLab pe curs
#   make test   — pregătește mediul (dacă e nevoie) și rulează toate testele
# Pentru instructor:
#   make validare — execută toate notebook-urile pe mașina curentă și scrie un raport în build/validare
#   make verifica — verificarea rapidă a mașinii: fiecare capitol în profilul rapid (dimensiuni mici),
#                   apoi un tabel trecut/eșuat (SOLUTII=1: și soluțiile; PARALEL=N: câte notebook-uri deodată;
#                   CURS_GPU_SIMULAT=T4: ca pe un T4)
#   make diapozitive — diapozitivele atelierului (fără rețea), din notebook-uri, în build/diapozitive
#   make rise     — prezentarea live cu RISE: capitolele împărțite în diapozitive și JupyterLab doar pe copiile lor
#   make plan-gpu — pașii rulărilor pe GPU ale referinței (PAS=N rulează pasul N; fără PAS, îi listează)
#   make pagini   — capitolele executate de make validare, ca pagini HTML statice fără rețea, în build/pagini
#   make fisa     — fișa atelierului, gata de tipărit pe o pagină A4, în build/fisa (și PDF, unde există Chromium)
# Întreținere:
#   make insigne  — regenerează insignele Colab și celula de pregătire din adresa cursului
#   make durate   — rescrie duratele capitolelor (prima celulă, README) din validările de referință
#   make ilustratii — redesenează ilustrațiile bucătăriei din assets/bucataria și harta diagnozei (assets/diagnoza)
#   make curata   — șterge cache-urile și ce produc testele (niciodată un notebook)
#
# Variabile utile:
#   PYTHON=python3.12      interpretorul cu care se creează .venv
#   FARA_INSTALARE=1       folosește Python-ul existent (cu pachetele lui), fără .venv și fără rețea
#   TESTE_PARALEL=4        câte procese rulează testele (implicit 3; 0: unul singur, în ordine)
#   LAB_ARGS="--no-browser --ip=0.0.0.0 --port=8888"   JupyterLab pe o mașină la distanță

PYTHON ?= python3
VENV := .venv
IPYWIDGETS7 := $(VENV)/ipywidgets7
NBVAL_ARGS ?= --nbval-lax --nbval-current-env --nbval-cell-timeout=900
# Testele rulează în paralel (pytest-xdist), în atâtea procese; un notebook rămâne întreg într-un
# singur proces (--dist loadfile), cu celulele în ordine. TESTE_PARALEL=0: totul într-un proces.
# Trei procese și pe o mașină cu două nuclee: multe teste așteaptă procese noi (kernel-uri, ranguri,
# compilări în proces nou), iar al treilea folosește nucleul lăsat liber între timp.
TESTE_PARALEL ?= 3
ifeq ($(TESTE_PARALEL),0)
PARALEL_ARGS :=
else
PARALEL_ARGS := -n $(TESTE_PARALEL) --dist loadfile
endif

ifeq ($(FARA_INSTALARE),1)
PY := $(PYTHON)
MEDIU := mediu-existent
else
PY := $(VENV)/bin/python
MEDIU := $(VENV)/.instalat
endif

.PHONY: lab test validare verifica plan-gpu rise insigne durate diapozitive fisa pagini ilustratii curata curata-tot mediu-existent

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# Se reinstalează doar când se schimbă lista de dependențe.
$(VENV)/.instalat: requirements.txt pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -r requirements.txt
	$(PY) -m pip install --no-deps -e .
	# ipywidgets 7.7.1 (cel de pe Colab), separat, doar pentru testul de compatibilitate al exploratoarelor
	$(PY) -m pip install --no-deps --target $(IPYWIDGETS7) "ipywidgets==7.7.1" ipython_genutils
	touch $@

mediu-existent:
	$(PY) -m pip install --no-deps --no-build-isolation -e . >/dev/null 2>&1 || true
	$(PY) -c "import curs_compilare, nbval, nbclient, ipykernel"

lab: $(MEDIU)
	$(PY) -m jupyter lab --ServerApp.root_dir="$(CURDIR)" \
		--LabApp.default_url=/lab/tree/notebooks $(LAB_ARGS)

# Testele: pachetul, verificările de conținut, apoi nbval execută fiecare notebook și fiecare
# soluție, în profilul „rapid” (dimensiuni mici). conftest.py verifică la final că notebook-urile
# au rămas neatinse. Inductor compilează în procesul care îi cere compilarea, fără grupul lui de
# procese de compilare: testele țin deja ocupate toate nucleele, iar fiecare proces care compilează
# ar mai porni câteva interpretoare cu torch doar pentru grup. Lab-ul și validarea păstrează
# alegerea lui Inductor (cea a cursantului).
test: $(MEDIU)
	CURS_PROFIL=rapid TORCHINDUCTOR_COMPILE_THREADS=1 $(PY) -m pytest -q $(PARALEL_ARGS) tests notebooks solutions $(NBVAL_ARGS) --durations=15

validare: $(MEDIU)
	$(PY) -m curs_compilare.instructor.validare --iesire build/validare

verifica: $(MEDIU)
	$(PY) -m curs_compilare.instructor.verificare_rapida $(if $(SOLUTII),--solutii) $(if $(PARALEL),--paralel $(PARALEL))

plan-gpu: $(MEDIU)
	$(PY) -m curs_compilare.instructor.plan_gpu $(if $(PAS),--pas $(PAS),--lista)

insigne: $(MEDIU)
	$(PY) -m curs_compilare.instructor.depozit

durate: $(MEDIU)
	$(PY) -m curs_compilare.instructor.durate

pagini: $(MEDIU)
	$(PY) -m curs_compilare.instructor.pagini --din $(or $(DIN),build/validare) --iesire build/pagini

rise: $(MEDIU)
	$(PY) -m curs_compilare.instructor.diapozitive --rise --lab $(if $(LAB_ARGS),--lab-argumente="$(LAB_ARGS)")

fisa: $(MEDIU)
	$(PY) -m curs_compilare.instructor.fisa --pdf-daca-se-poate

diapozitive: $(MEDIU)
	$(PY) -m curs_compilare.instructor.diapozitive

ilustratii: $(MEDIU)
	$(PY) -m curs_compilare.instructor.ilustratii
	$(PY) -m curs_compilare.capitole.cap07_diagnoza

curata:
	rm -rf build .pytest_cache *.egg-info
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name .ipynb_checkpoints \) -type d -print \
		| xargs rm -rf

curata-tot: curata
	rm -rf $(VENV)
